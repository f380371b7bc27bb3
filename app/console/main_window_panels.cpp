// The main window's parts for the queue grouping, the Overview, the Nodes panel and the settings
// dialog: the team rows of the queue tables show each team's GPUs in use from the snapshot, the
// Overview's pending reasons filter the Pending queue, and Settings… opens the dialog.
#include <QAction>
#include <QDockWidget>
#include <QHash>
#include <QStatusBar>

#include "console/main_window.h"
#include "console/settings_dialog.h"
#include "job_group_proxy.h"
#include "job_queue_view.h"
#include "node_admission_model.h"
#include "node_admission_panel.h"
#include "overview_model.h"
#include "overview_panel.h"

namespace tessera::console {

namespace {

// A dock in the right area as a tab of the dock named `beside`, not another panel stacked there:
// the window's least height stays (the layout presets place it anyway).
void tabbedDock(QMainWindow& window, const QString& title, const QString& name, QWidget* content,
                const QString& beside) {
  auto* dock = new QDockWidget(title, &window);
  dock->setObjectName(name);
  dock->setWidget(content);
  window.addDockWidget(Qt::RightDockWidgetArea, dock);
  if (auto* other = window.findChild<QDockWidget*>(beside)) window.tabifyDockWidget(other, dock);
}

}  // namespace

// The snapshot knows every team's GPUs in use, jobs beyond the queue tables' limit included.
void MainWindow::showTeamHoldings(const ClusterSnapshot& s) {
  QHash<QString, double> held;
  for (const TeamView& t : s.teams) held.insert(QString::fromStdString(t.name), t.gpusInUse);
  for (auto* view : findChildren<widgets::JobQueueView*>()) view->groups()->setTeamGpusHeld(held);
}

void MainWindow::buildOverviewDock() {
  overviewModel_ = new widgets::OverviewModel(this);
  overviewModel_->setCatalog(demo_.catalog);
  overview_ = new widgets::OverviewPanel(overviewModel_);
  tabbedDock(*this, tr("Overview"), QStringLiteral("overview"), overview_,
             QStringLiteral("inspector"));
  connect(overview_, &widgets::OverviewPanel::reasonActivated, this,
          &MainWindow::showPendingOfKind);
  connect(overview_, &widgets::OverviewPanel::jobActivated, this, &MainWindow::selectJob);
}

// Nodes awaiting admission and the nodes' warnings (ConsoleSession::nodeInventoryReady), a tab
// beside the Overview: both say what needs an operator.
void MainWindow::buildAdmissionDock() {
  admissionModel_ = new widgets::NodeAdmissionModel(this);
  admission_ = new widgets::NodeAdmissionPanel(admissionModel_);
  tabbedDock(*this, tr("Nodes"), QStringLiteral("admission"), admission_,
             QStringLiteral("overview"));
}

// The same reason again shows every pending job (and so does a new search).
void MainWindow::showPendingOfKind(const QString& kind, const QString& label) {
  const bool again = pendingProxy_->reasonKind() == kind;
  pendingProxy_->setReasonKind(again ? QString() : kind);
  raisePanel(QStringLiteral("pending"));
  statusBar()->showMessage(
      again ? tr("Pending: every job")
            : tr("Pending: only “%1” (activate it again for every job)").arg(label),
      8000);
}

void MainWindow::openSettingsDialog() {
  if (auto* open = findChild<SettingsDialog*>(); open && open->isVisible()) {
    open->raise();
    open->activateWindow();
    return;
  }
  auto* dialog = new SettingsDialog(this);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &QDialog::accepted, this,
          [this] { log(tr("Settings saved; a new language applies at the next start")); });
  dialog->open();
}

}  // namespace tessera::console
