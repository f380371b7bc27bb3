// The console's gestures, each turned into one operator command sent through the session: a
// job dropped on the heatmap pins it there, a job dragged within the queue moves it, the
// inspector's buttons hold/release/preempt/cancel/re-prioritize, the repartition editor dry-runs
// and applies layouts; plus switching sessions, search and the report export dialog.
#include <QComboBox>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFormLayout>
#include <QLineEdit>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSettings>

#include "console/main_window.h"
#include "console_session.h"
#include "core/engine_text.h"
#include "engine_text.h"
#include "heatmap_widget.h"
#include "idle_gpu_panel.h"
#include "job_inspector.h"
#include "job_table_model.h"
#include "mig_editor.h"
#include "mig_map_widget.h"
#include "overview_panel.h"
#include "report_export_dialog.h"
#include "sharing_study_dialog.h"

namespace tessera::console {
namespace {

Command commandFor(JobId job, widgets::JobAction action, const QString& priorityClass) {
  switch (action) {
    case widgets::JobAction::Hold:
      return cmd::Hold{job};
    case widgets::JobAction::Release:
      return cmd::Release{job};
    case widgets::JobAction::Preempt:
      return cmd::Preempt{job};
    case widgets::JobAction::Cancel:
      return cmd::Cancel{job};
    case widgets::JobAction::SetPriority:
      break;
  }
  return cmd::SetPriority{job, priorityClass.toStdString()};
}

// A job dropped (or hovering) on a heatmap GPU, or on a node's frame (gpu = -1).
cmd::Pin pinTo(JobId job, const QString& node, int gpu) {
  cmd::Pin pin{job, {}, {}};
  if (gpu >= 0)
    pin.gpus.push_back(node.toStdString() + "/" + std::to_string(gpu));
  else
    pin.nodes.push_back(node.toStdString());
  return pin;
}

const GpuView* findGpu(const ClusterSnapshot& s, const QString& name) {
  const auto slash = name.lastIndexOf('/');
  const std::string node = name.left(slash).toStdString();
  const int index = name.mid(slash + 1).toInt();
  for (const NodeView& n : s.nodes)
    if (n.name == node)
      for (const GpuView& g : n.gpus)
        if (g.index == index) return &g;
  return nullptr;
}

}  // namespace

void MainWindow::sendCommand(const Command& c, bool dryRun) {
  if (session_) session_->act(c, dryRun);
}

void MainWindow::selectJob(JobId id) {
  if (!session_ || id == kNoJob) return;
  session_->explain(id);
  heatmap_->highlightJob(id);
  raisePanel(QStringLiteral("inspector"));
}

void MainWindow::wireGestures() {
  connect(heatmap_, &widgets::HeatmapWidget::jobDropped, this,
          [this](JobId job, const QString& node, int gpu) {
            sendCommand(pinTo(job, node, gpu), false);
          });
  // While the job hovers, the same pin as a dry run: the verdict goes to the heatmap's callout,
  // not to the Activity log (ConsoleSession::preview).
  connect(heatmap_, &widgets::HeatmapWidget::dropPreviewRequested, this,
          [this](JobId job, const widgets::HeatmapDropTarget& target) {
            if (!session_) return;
            session_->preview(
                pinTo(job, target.node, target.gpu), heatmap_,
                [this, job, target](const std::variant<CommandResult, QString>& answer) {
                  const widgets::HeatmapDropPreview v =
                      widgets::heatmapPinPreview(job, target, answer, heatmap_->snapshot());
                  heatmap_->setDropPreview(target, v.ok, v.text);
                });
          });
  connect(jobModel_, &widgets::JobTableModel::moveRequested, this, [this](JobId job, JobId before) {
    cmd::Move m{job, before ? cmd::Move::To::Before : cmd::Move::To::Bottom, before};
    sendCommand(m, false);
  });
  // The inspector's buttons and the idle list's reclaim actions: the same commands.
  auto jobAction = [this](JobId job, widgets::JobAction a, const QString& cls) {
    sendCommand(commandFor(job, a, cls), false);
  };
  connect(inspector_, &widgets::JobInspector::actionRequested, this, jobAction);
  connect(idlePanel_, &widgets::IdleGpuPanel::actionRequested, this, jobAction);
  connect(inspector_, &widgets::JobInspector::jobActivated, this, &MainWindow::selectJob);
  connect(inspector_, &widgets::JobInspector::suggestionActivated, this,
          [this](const Counterfactual& c) {
            // "... if GPU inf-01/3 were repartitioned from A to B (...)": open the editor there,
            // with the GPU and the layout taken from the sentence's arguments (or, from a
            // tesserad that sends English only, from its words).
            QString gpu, layout;
            const auto& args = c.text.args();
            if (c.text.patternText() == text::kCfRepartition && args.size() >= 3) {
              gpu = QString::fromStdString(args[0].english());
              layout = QString::fromStdString(args[2].english());
            } else {
              static const QRegularExpression re(
                  QStringLiteral(R"(GPU (\S+) were repartitioned from .* to (\S+) \()"));
              if (const auto m = re.match(QString::fromStdString(c.text.english())); m.hasMatch())
                gpu = m.captured(1), layout = m.captured(2);
            }
            if (c.kind != Counterfactual::Kind::Repartition || gpu.isEmpty()) {
              log(displayText(c.text));
              return;
            }
            if (migMap_->selectGpu(gpu)) migEditor_->setInitialLayout(layout);
            raisePanel(QStringLiteral("repartition"));
          });
  connect(migMap_, &widgets::MigMapWidget::gpuSelected, this, [this](const QString& gpu) {
    if (const GpuView* g = findGpu(heatmap_->snapshot(), gpu)) migEditor_->setGpu(*g, gpu);
  });
  connect(heatmap_, &widgets::HeatmapWidget::gpuSelected, this,
          [this](const QString& node, int gpu) {
            // A MIG GPU opens the editor; the map, if that is where the click came from, stays.
            if (migMap_->selectGpu(node + "/" + QString::number(gpu)))
              raisePanel(QStringLiteral("repartition"));
          });
  connect(migEditor_, &widgets::MigEditor::dryRunRequested, this,
          [this](const QString& gpu, const QString& layout) {
            sendCommand(cmd::Repartition{gpu.toStdString(), layout.toStdString(), false}, true);
          });
  connect(migEditor_, &widgets::MigEditor::applyRequested, this,
          [this](const QString& gpu, const QString& layout) {
            sendCommand(cmd::Repartition{gpu.toStdString(), layout.toStdString(), false}, false);
          });
  connect(migEditor_, &widgets::MigEditor::refused, this,
          [this](const QString& reason) { log(tr("Layout refused: %1").arg(reason), true); });
}

void MainWindow::applySearch(const QString& text) {
  pendingProxy_->setReasonKind({});  // a new search shows every reason again
  pendingProxy_->setSearchText(text);
  runningProxy_->setSearchText(text);
  // A node or GPU name selects it on the heatmap too.
  QStringList gpus;
  for (const NodeView& n : heatmap_->snapshot().nodes) {
    const QString node = QString::fromStdString(n.name);
    for (const GpuView& g : n.gpus) {
      const QString name = node + "/" + QString::number(g.index);
      if (!text.isEmpty() && (node == text || name == text)) gpus << name;
    }
  }
  heatmap_->setSelectedGpus(gpus);
}

void MainWindow::openEmbedded() {
  auto demo = openEmbeddedSession(demo_);
  if (!demo) {
    log(tr("Cannot start the embedded demo: %1").arg(QString::fromStdString(demo.error().str())),
        true);
    return;
  }
  useSession(demo->backend, tr("Embedded demo (simulated, %1)").arg(speed_->currentText()),
             demo->backend, demo->database);
  demo->backend->setSpeed(speed_->currentData().toDouble());
}

void MainWindow::openConnectDialog() {
  QDialog dialog(this);
  dialog.setWindowTitle(tr("Connect to tesserad"));
  auto* form = new QFormLayout(&dialog);
  auto* address = new QLineEdit(QStringLiteral("127.0.0.1:50551"));
  auto* token = new QLineEdit;
  token->setEchoMode(QLineEdit::Password);
  auto* ca = new QLineEdit;
  ca->setPlaceholderText(tr("PEM file; empty = plaintext (loopback only)"));
  form->addRow(tr("Address"), address);
  form->addRow(tr("Token"), token);
  form->addRow(tr("CA certificate"), ca);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  form->addRow(buttons);
  if (dialog.exec() != QDialog::Accepted) return;
  auto session = openRemoteSession({address->text(), token->text(), ca->text()});
  if (!session) {
    QMessageBox::warning(this, tr("Connect to tesserad"),
                         QString::fromStdString(session.error().str()));
    return;
  }
  useSession(*session, tr("tesserad at %1").arg(address->text()), nullptr);
}

// The embedded demo's reports read its database directly, so the dialog shows real progress; a
// remote tesserad computes them itself (ClusterSession::report).
widgets::ReportRunner MainWindow::reportRunner() const {
  if (embedded_ && !embeddedDatabase_.empty())
    return embeddedReportRunner(embeddedDatabase_, demo_.catalog, embedded_, reportWorkers_);
  if (session_) return sessionReportRunner(session_->session(), reportWorkers_);
  return {};
}

void MainWindow::openReportDialog() {
  if (!reportDialog_) {
    reportDialog_ = new widgets::ReportExportDialog(reportRunner(), this);
    updateReportClock();  // first: a saved custom range is restored in the clock's own terms
    reportDialog_->setSettings(QSettings().value(QStringLiteral("report/dialog")).toMap());
    connect(reportDialog_, &QDialog::finished, this, &MainWindow::saveReportSettings);
    connect(reportDialog_, &widgets::ReportExportDialog::exported, this,
            [this](const QString& path) { log(tr("Report written to %1").arg(path)); });
  }
  QStringList teams;
  for (const TeamView& t : lastSnapshot_.teams) teams << QString::fromStdString(t.name);
  reportDialog_->setKnownTeams(teams);
  updateReportClock();
  reportDialog_->show();
  reportDialog_->raise();
  reportDialog_->activateWindow();
}

// The study simulates the cluster the console was opened with; it never touches the session.
void MainWindow::openSharingStudy() {
  if (!sharingDialog_) sharingDialog_ = new widgets::SharingStudyDialog(demo_.cluster, this);
  sharingDialog_->show();
  sharingDialog_->raise();
  sharingDialog_->activateWindow();
}

// The dialog's presets count back from the session's clock: the embedded demo's (and a
// simulated-live tesserad's) starts at 0, a live one is Unix time.
void MainWindow::updateReportClock() {
  if (!reportDialog_) return;
  const bool wallClock =
      !embedded_ && lastSnapshot_.mode != backendModeName(BackendMode::SimulatedLive);
  reportDialog_->setClock(now_, wallClock);
}

void MainWindow::saveReportSettings() {
  if (reportDialog_)
    QSettings().setValue(QStringLiteral("report/dialog"), reportDialog_->settings());
}

}  // namespace tessera::console
