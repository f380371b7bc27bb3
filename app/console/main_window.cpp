#include "console/main_window.h"

#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTableView>
#include <QThreadPool>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>

#include <set>

#include "cluster_tree_model.h"
#include "console_session.h"
#include "engine_text.h"
#include "gantt_widget.h"
#include "heatmap_widget.h"
#include "idle_gpu_model.h"
#include "idle_gpu_panel.h"
#include "job_inspector.h"
#include "job_queue_view.h"
#include "job_table_model.h"
#include "mig_editor.h"
#include "mig_map_widget.h"
#include "node_admission_model.h"
#include "overview_model.h"
#include "overview_panel.h"
#include "report_export_dialog.h"
#include "utilization_chart.h"

namespace tessera::console {
namespace {

QScrollArea* scrolled(QWidget* content) {
  auto* area = new QScrollArea;
  area->setWidget(content);
  area->setWidgetResizable(true);
  area->setFrameShape(QFrame::NoFrame);
  return area;
}

}  // namespace

MainWindow::MainWindow(EmbeddedOptions demo, QWidget* parent)
    : QMainWindow(parent),
      demo_(std::move(demo)),
      heatmap_(new widgets::HeatmapWidget),
      jobModel_(new widgets::JobTableModel(this)),
      pendingProxy_(new widgets::ReasonFilterProxy(this)),
      runningProxy_(new widgets::JobFilterProxy(this)),
      inspector_(new widgets::JobInspector),
      migMap_(new widgets::MigMapWidget),
      migEditor_(new widgets::MigEditor),
      treeModel_(new widgets::ClusterTreeModel(this)),
      chart_(new widgets::UtilizationChart),
      idleModel_(new widgets::IdleGpuModel(this)),
      gantt_(new widgets::GanttWidget),
      metricsTimer_(new QTimer(this)),
      activity_(new QListWidget) {
  setWindowTitle(tr("Tessera — %1").arg(QString::fromStdString(demo_.cluster->name)));
  setObjectName(QStringLiteral("TesseraMainWindow"));
  setCentralWidget(heatmap_);
  if (demo_.catalog) {
    migMap_->setCatalog(demo_.catalog);
    migEditor_->setCatalog(demo_.catalog);
  }
  QStringList classes;
  for (const auto& c : demo_.workload.priorityClasses) classes << QString::fromStdString(c.name);
  inspector_->setPriorityClasses(classes);
  buildToolbar();
  buildDocks();
  buildUtilizationDocks();
  buildOverviewDock();
  buildAdmissionDock();
  wireGestures();
  sessionLabel_ = new QLabel;
  totals_ = new QLabel;
  statusBar()->addWidget(totals_, 1);
  statusBar()->addPermanentWidget(sessionLabel_);
  buildViewMenu();
  nameWidgetsForAccessibility();
  setGeometry(initialWindowGeometry(screen()->availableGeometry()));
  restoreSettings();
  openEmbedded();
}

// A metric fetch still running on the thread pool holds the session: were it the last holder,
// the embedded engine would be destroyed on that worker and join its own thread. Waiting for the
// (short) fetches leaves the last reference to this thread.
MainWindow::~MainWindow() {
  delete fetcher_;
  fetcher_ = nullptr;
  QThreadPool::globalInstance()->waitForDone();
}

void MainWindow::buildToolbar() {
  auto* bar = addToolBar(tr("Session"));
  bar->setObjectName(QStringLiteral("toolbar"));
  bar->addAction(tr("Embedded demo"), this, &MainWindow::openEmbedded);
  bar->addAction(tr("Connect…"), this, &MainWindow::openConnectDialog)
      ->setShortcut(QKeySequence(tr("Ctrl+K")));
  exportReport_ = bar->addAction(tr("Export report…"), this, &MainWindow::openReportDialog);
  exportReport_->setObjectName(QStringLiteral("exportReport"));
  exportReport_->setShortcut(QKeySequence(tr("Ctrl+E")));
  exportReport_->setToolTip(tr("A utilization and chargeback report as PDF, HTML, CSV or JSON"));
  sharingStudy_ = bar->addAction(tr("Sharing study…"), this, &MainWindow::openSharingStudy);
  sharingStudy_->setObjectName(QStringLiteral("sharingStudy"));
  sharingStudy_->setToolTip(
      tr("Compare whole GPUs, time-slicing, MPS and MIG on this cluster in simulation"));
  settings_ = bar->addAction(tr("Settings…"), this, &MainWindow::openSettingsDialog);
  settings_->setObjectName(QStringLiteral("settings"));
  settings_->setShortcut(QKeySequence(tr("Ctrl+,")));
  bar->addSeparator();
  bar->addWidget(new QLabel(tr("Speed ")));
  speed_ = new QComboBox;
  for (const auto& [label, value] : std::vector<std::pair<QString, double>>{{tr("paused"), 0},
                                                                            {tr("1×"), 1},
                                                                            {tr("60×"), 60},
                                                                            {tr("600×"), 600},
                                                                            {tr("3600×"), 3600}})
    speed_->addItem(label, value);
  speed_->setCurrentIndex(2);
  connect(speed_, &QComboBox::currentIndexChanged, this, [this] {
    if (embedded_) embedded_->setSpeed(speed_->currentData().toDouble());
  });
  bar->addWidget(speed_);
  bar->addSeparator();
  bar->addWidget(new QLabel(tr("Layer ")));
  layer_ = new QComboBox;
  for (auto l : {widgets::HeatmapLayer::Allocation, widgets::HeatmapLayer::Team,
                 widgets::HeatmapLayer::Utilization, widgets::HeatmapLayer::SmActive,
                 widgets::HeatmapLayer::TensorActive, widgets::HeatmapLayer::MemoryUsed,
                 widgets::HeatmapLayer::Power, widgets::HeatmapLayer::Temperature,
                 widgets::HeatmapLayer::Gap, widgets::HeatmapLayer::Fragmentation,
                 widgets::HeatmapLayer::Health})
    layer_->addItem(widgets::heatmapLayerName(l), static_cast<int>(l));
  connect(layer_, &QComboBox::currentIndexChanged, this, [this] {
    heatmap_->setLayer(static_cast<widgets::HeatmapLayer>(layer_->currentData().toInt()));
  });
  bar->addWidget(layer_);
  bar->addAction(tr("Fit"), heatmap_, &widgets::HeatmapWidget::fitToView)
      ->setShortcut(QKeySequence(tr("Ctrl+0")));
  bar->addSeparator();
  search_ = new QLineEdit;
  search_->setPlaceholderText(tr("Search jobs, nodes, GPUs (Ctrl+F)"));
  search_->setClearButtonEnabled(true);
  search_->setMaximumWidth(320);
  auto* find = new QAction(this);
  find->setShortcut(QKeySequence::Find);
  connect(find, &QAction::triggered, search_, [this] { search_->setFocus(); });
  addAction(find);
  connect(search_, &QLineEdit::textChanged, this, &MainWindow::applySearch);
  bar->addWidget(search_);
  auto* dark = bar->addAction(tr("Dark"));
  dark->setCheckable(true);
  dark->setChecked(QSettings().value(QStringLiteral("ui/dark"), false).toBool());
  applyPalette(dark->isChecked());
  connect(dark, &QAction::toggled, this, [this](bool on) {
    QSettings().setValue(QStringLiteral("ui/dark"), on);
    applyPalette(on);
  });
}

// Fusion with a dark palette, or the platform's own light one. The heatmap's scales are chosen
// to read on both.
void MainWindow::applyPalette(bool dark) {
  QApplication::setStyle(QStringLiteral("Fusion"));
  if (!dark) {
    QApplication::setPalette(QApplication::style()->standardPalette());
    return;
  }
  QPalette p;
  const QColor window(37, 41, 46), base(28, 31, 35), text(222, 226, 230), accent(64, 132, 214);
  p.setColor(QPalette::Window, window);
  p.setColor(QPalette::WindowText, text);
  p.setColor(QPalette::Base, base);
  p.setColor(QPalette::AlternateBase, window);
  p.setColor(QPalette::ToolTipBase, base);
  p.setColor(QPalette::ToolTipText, text);
  p.setColor(QPalette::Text, text);
  p.setColor(QPalette::Button, window);
  p.setColor(QPalette::ButtonText, text);
  p.setColor(QPalette::Highlight, accent);
  p.setColor(QPalette::HighlightedText, Qt::white);
  p.setColor(QPalette::Disabled, QPalette::Text, text.darker(170));
  p.setColor(QPalette::Disabled, QPalette::ButtonText, text.darker(170));
  QApplication::setPalette(p);
}

// A queue table: flat or grouped by team (JobQueueView), its toggle kept in the settings.
widgets::JobQueueView* MainWindow::makeJobView(widgets::JobFilterProxy* proxy,
                                               const QString& name) {
  proxy->setSourceModel(jobModel_);
  auto* view = new widgets::JobQueueView(proxy);
  view->setObjectName(name + QStringLiteral("Jobs"));
  // Team rows have no job: selecting one explains nothing (selectJob ignores kNoJob).
  connect(view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this](const QModelIndex& current) {
            selectJob(current.data(widgets::JobTableModel::JobIdRole).toULongLong());
          });
  addJobActions(view);
  auto* separator = new QAction(view);
  separator->setSeparator(true);
  view->addActions({separator, view->groupByTeamAction()});
  addColumnChooser(view);
  view->setSettingsKey(QStringLiteral("queues/%1/groupByTeam").arg(name));
  return view;
}

// The job actions on the selected row: context menu and keyboard (H hold, R release,
// P preempt, Delete cancel), each one operator command.
void MainWindow::addJobActions(QAbstractItemView* view) {
  view->setContextMenuPolicy(Qt::ActionsContextMenu);
  auto selected = [view] {
    const QModelIndex i = view->currentIndex();
    return i.isValid() ? i.data(widgets::JobTableModel::JobIdRole).toULongLong() : JobId{kNoJob};
  };
  auto add = [this, view, selected](const QString& text, const QKeySequence& key,
                                    std::function<Command(JobId)> make) {
    auto* a = new QAction(text, view);
    a->setShortcut(key);
    a->setShortcutContext(Qt::WidgetShortcut);
    connect(a, &QAction::triggered, this, [this, selected, make] {
      if (const JobId id = selected(); id != kNoJob) sendCommand(make(id), false);
    });
    view->addAction(a);
  };
  add(tr("Hold"), QKeySequence(Qt::Key_H), [](JobId id) { return Command{cmd::Hold{id}}; });
  add(tr("Release"), QKeySequence(Qt::Key_R), [](JobId id) { return Command{cmd::Release{id}}; });
  add(tr("Preempt"), QKeySequence(Qt::Key_P), [](JobId id) { return Command{cmd::Preempt{id}}; });
  add(tr("Cancel job"), QKeySequence::Delete, [](JobId id) { return Command{cmd::Cancel{id}}; });
  // The keyboard's drop: the GPUs selected on the heatmap (Enter there, or a rubber band).
  add(tr("Pin to selected GPUs"), QKeySequence(Qt::Key_G), [this](JobId id) {
    cmd::Pin pin{id, {}, {}};
    for (const QString& gpu : heatmap_->selectedGpus()) pin.gpus.push_back(gpu.toStdString());
    return Command{pin};
  });
  add(tr("Move to top"), QKeySequence(Qt::CTRL | Qt::Key_Up), [](JobId id) {
    return Command{cmd::Move{id, cmd::Move::To::Top, kNoJob}};
  });
  add(tr("Move to bottom"), QKeySequence(Qt::CTRL | Qt::Key_Down), [](JobId id) {
    return Command{cmd::Move{id, cmd::Move::To::Bottom, kNoJob}};
  });
}

// Right-click on the header: group by team, show or hide columns (kept with the window state).
void MainWindow::addColumnChooser(widgets::JobQueueView* view) {
  auto* header = view->header();
  header->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(header, &QHeaderView::customContextMenuRequested, this, [view, header](QPoint at) {
    QMenu menu;
    menu.addAction(view->groupByTeamAction());
    menu.addSeparator();
    for (int c = 0; c < view->model()->columnCount(); ++c) {
      auto* a = menu.addAction(view->model()->headerData(c, Qt::Horizontal).toString());
      a->setCheckable(true);
      a->setChecked(!header->isSectionHidden(c));
      QObject::connect(a, &QAction::toggled, header,
                       [header, c](bool on) { header->setSectionHidden(c, !on); });
    }
    menu.exec(header->mapToGlobal(at));
  });
}

void MainWindow::buildDocks() {
  auto dock = [this](const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea a) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
    addDockWidget(a, d);
    return d;
  };
  pendingProxy_->setStateFilter(widgets::JobFilterProxy::StateFilter::Pending);
  runningProxy_->setStateFilter(widgets::JobFilterProxy::StateFilter::Running);
  auto* pending =
      dock(tr("Pending"), QStringLiteral("pending"),
           makeJobView(pendingProxy_, QStringLiteral("pending")), Qt::BottomDockWidgetArea);
  auto* running =
      dock(tr("Running"), QStringLiteral("running"),
           makeJobView(runningProxy_, QStringLiteral("running")), Qt::BottomDockWidgetArea);
  tabifyDockWidget(pending, running);
  pending->raise();
  // The inspector's content grows with the selection: in a scroll area it scrolls instead of
  // growing the dock, which would push the queue under the operator's pointer. The repartition
  // editor scrolls its own body and keeps its buttons in view.
  dock(tr("Why pending"), QStringLiteral("inspector"), scrolled(inspector_),
       Qt::RightDockWidgetArea);
  auto* mig = dock(tr("MIG map"), QStringLiteral("mig"), migMap_, Qt::RightDockWidgetArea);
  auto* editor =
      dock(tr("Repartition"), QStringLiteral("repartition"), migEditor_, Qt::RightDockWidgetArea);
  tabifyDockWidget(mig, editor);
  treeModel_->setCluster(demo_.cluster);
  tree_ = new QTreeView;
  tree_->setModel(treeModel_);
  tree_->setUniformRowHeights(true);
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  auto* hardware = dock(tr("Hardware"), QStringLiteral("hardware"), tree_, Qt::LeftDockWidgetArea);
  auto* log = dock(tr("Activity"), QStringLiteral("activity"), activity_, Qt::LeftDockWidgetArea);
  tabifyDockWidget(hardware, log);
  log->raise();
}

void MainWindow::buildUtilizationDocks() {
  auto dock = [this](const QString& title, const QString& name, QWidget* w) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(name);
    d->setWidget(w);
    addDockWidget(Qt::BottomDockWidgetArea, d);
    return d;
  };
  auto* pending = findChild<QDockWidget*>(QStringLiteral("pending"));
  // Its reclaim actions are wired with the other job actions (wireGestures); a double-click
  // opens the idle GPU's job in the inspector.
  idlePanel_ = new widgets::IdleGpuPanel(idleModel_);
  connect(idlePanel_, &widgets::IdleGpuPanel::jobActivated, this, &MainWindow::selectJob);
  for (auto* d : {dock(tr("Utilization"), QStringLiteral("utilization"), chart_),
                  dock(tr("Idle GPUs"), QStringLiteral("idle"), idlePanel_),
                  dock(tr("Timeline"), QStringLiteral("timeline"), gantt_)})
    if (pending) tabifyDockWidget(pending, d);
  if (pending) pending->raise();
  connect(gantt_, &widgets::GanttWidget::jobSelected, this, &MainWindow::selectJob);
  // Another scope's series now, not at the next 5 s tick.
  connect(chart_, &widgets::UtilizationChart::scopeChanged, this,
          [this](const widgets::MetricScope& scope) {
            if (fetcher_) fetcher_->setScope(scope);
            fetchMetrics();
          });
  connect(metricsTimer_, &QTimer::timeout, this, &MainWindow::fetchMetrics);
  metricsTimer_->start(5000);
}

void MainWindow::fetchMetrics() {
  // The last six engine hours: the minute rollups cover them in a few hundred points.
  if (fetcher_ && now_ > 0) fetcher_->fetch(std::max<Seconds>(0, now_ - 6 * 3600));
}

void MainWindow::restoreSettings() {
  QSettings s;
  layoutPending_ = !restoreLayout();
  layer_->setCurrentIndex(s.value(QStringLiteral("heatmap/layer"), 0).toInt());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  saveLayout();
  QSettings s;
  s.setValue(QStringLiteral("heatmap/layer"), layer_->currentIndex());
  saveReportSettings();
  QMainWindow::closeEvent(event);
}

void MainWindow::useSession(std::shared_ptr<ClusterSession> session, const QString& description,
                            std::shared_ptr<Backend> embedded, std::string embeddedDatabase) {
  delete session_;
  embedded_ = std::move(embedded);
  embeddedDatabase_ = embedded_ ? std::move(embeddedDatabase) : std::string();
  speed_->setEnabled(embedded_ != nullptr);
  session_ = new widgets::ConsoleSession(std::move(session), description, this);
  delete fetcher_;
  fetcher_ = new widgets::MetricFetcher(
      [s = session_->session()](MetricQuery q, Reply<MetricAnswer> r) {
        s->metrics(std::move(q), std::move(r));
      },
      this);
  connect(fetcher_, &widgets::MetricFetcher::seriesReady, chart_,
          &widgets::UtilizationChart::setSeries);
  connect(fetcher_, &widgets::MetricFetcher::teamSeriesReady, chart_,
          &widgets::UtilizationChart::setTeamSeries);
  connect(fetcher_, &widgets::MetricFetcher::scopesReady, chart_,
          &widgets::UtilizationChart::setScopes);
  fetcher_->setScope(chart_->scope());
  connectSession();
  if (reportDialog_) reportDialog_->setRunner(reportRunner());
  sessionLabel_->setText(description);
  log(tr("Session: %1").arg(description));
  session_->refresh();
  // Changes are pushed by the session; the slow poll only carries the clock forward (wait times,
  // telemetry) when nothing happens.
  session_->setRefreshInterval(5000);
}

void MainWindow::connectSession() {
  using widgets::ConsoleSession;
  connect(session_, &ConsoleSession::snapshotReady, this, &MainWindow::showSnapshot);
  connect(session_, &ConsoleSession::jobsReady, this, &MainWindow::showJobs);
  connect(session_, &ConsoleSession::nodeInventoryReady, admissionModel_,
          &widgets::NodeAdmissionModel::setInventory);
  connect(session_, &ConsoleSession::explanationReady, inspector_,
          &widgets::JobInspector::setExplanation);
  connect(
      session_, &ConsoleSession::actionDone, this,
      [this](const QString& what, const CommandResult& r, bool dryRun) {
        log((dryRun ? tr("Dry run: %1 → %2") : tr("%1 → %2")).arg(what, displayText(r.message)));
        if (dryRun) migEditor_->showImpact(displayText(r.message));
      });
  connect(session_, &ConsoleSession::actionFailed, this,
          [this](const QString& what, const QString& message) {
            log(tr("Refused: %1 — %2").arg(what, message), true);
          });
  connect(session_, &ConsoleSession::sessionError, this, [this](const QString& message) {
    sessionLabel_->setText(tr("%1 — disconnected: %2").arg(session_->description(), message));
  });
  connect(session_, &ConsoleSession::sessionOk, this,
          [this] { sessionLabel_->setText(session_->description()); });
}

void MainWindow::showSnapshot(const ClusterSnapshot& s) {
  // The charts get their series with the first snapshot, not at the first 5 s tick.
  const bool first = now_ == 0 && s.now > 0;
  now_ = s.now;
  if (first) fetchMetrics();
  lastSnapshot_ = s;
  updateReportClock();
  heatmap_->setSnapshot(s);
  idleModel_->setSnapshot(s);
  overviewModel_->setSnapshot(s);
  showTeamHoldings(s);
  migMap_->setSnapshot(s);
  inspector_->setNow(s.now);
  QString text = tr("GPUs %1 / %2 allocated").arg(s.gpusAllocated, 0, 'f', 1).arg(s.gpusTotal);
  if (const auto busy = widgets::busyGpus(s))
    text += tr(", %1 busy, %2 SM-active").arg(busy->busy, 0, 'f', 1).arg(busy->smActive, 0, 'f', 1);
  text += tr(" · %1 pending, %2 running · cycle %3 ms")
              .arg(s.pendingJobs)
              .arg(s.runningJobs)
              .arg(s.lastCycleMs, 0, 'f', 1);
  text += executorText(s.executor);
  totals_->setText(text);
  totals_->setToolTip(s.executor.detail.empty() ? QString()
                                                : QString::fromStdString(s.executor.detail));
}

// " · slurm ready, synced 2 s ago" / " · slurm UNAVAILABLE since 40 s": what runs the jobs, and
// whether what the console shows is still the cluster's state. Empty without an executor.
QString MainWindow::executorText(const ClusterSnapshot::Executor& x) const {
  if (x.name == "none") return {};
  const QString name = QString::fromStdString(x.name);
  const QString ago =
      x.lastSync > 0 ? widgets::JobTableModel::durationText(std::max<Seconds>(0, now_ - x.lastSync))
                     : QString();
  if (x.state == "ready") return tr(" · %1 ready, synced %2 ago").arg(name, ago);
  if (ago.isEmpty()) return tr(" · %1 UNAVAILABLE, never synced").arg(name);
  return tr(" · %1 UNAVAILABLE, last synced %2 ago").arg(name, ago);
}

void MainWindow::showJobs(const std::vector<JobInfo>& jobs) {
  jobModel_->setJobs(jobs, now_);
  inspector_->setClusterJobs(jobs);
  overviewModel_->setJobs(jobs);
  gantt_->setData(lastSnapshot_, jobs);
  // The MIG map marks free slices no waiting request can use: the demand is what is pending.
  std::set<std::string> demand;
  for (const JobInfo& j : jobs)
    if (j.row.state == JobState::Pending && j.row.job.perTask.kind == GpuRequest::Kind::Mig)
      demand.insert(j.row.job.perTask.migProfile);
  migMap_->setDemand({demand.begin(), demand.end()});
  heatmap_->setFragmentationDemand(FragmentationDemand::of(jobs), demo_.catalog);
}

void MainWindow::log(const QString& line, bool error) {
  auto* item = new QListWidgetItem(line);
  if (error) item->setForeground(Qt::red);
  activity_->addItem(item);
  activity_->scrollToBottom();
  if (error) statusBar()->showMessage(line, 8000);
}

}  // namespace tessera::console
