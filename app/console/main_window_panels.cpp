// The main window's parts for the queue grouping and the settings dialog: the team rows of the
// queue tables show each team's GPUs in use from the snapshot, and Settings… opens the dialog.
#include <QAction>
#include <QHash>

#include "console/main_window.h"
#include "console/settings_dialog.h"
#include "job_group_proxy.h"
#include "job_queue_view.h"

namespace tessera::console {

// The snapshot knows every team's GPUs in use, jobs beyond the queue tables' limit included.
void MainWindow::showTeamHoldings(const ClusterSnapshot& s) {
  QHash<QString, double> held;
  for (const TeamView& t : s.teams) held.insert(QString::fromStdString(t.name), t.gpusInUse);
  for (auto* view : findChildren<widgets::JobQueueView*>()) view->groups()->setTeamGpusHeld(held);
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
