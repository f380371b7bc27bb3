#include "console/main_window.h"

#include <QCloseEvent>
#include <QComboBox>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSettings>
#include <QStatusBar>
#include <QTableView>
#include <QToolBar>
#include <QTreeView>

#include <set>

#include "cluster_tree_model.h"
#include "console_session.h"
#include "heatmap_widget.h"
#include "job_inspector.h"
#include "job_table_model.h"
#include "mig_editor.h"
#include "mig_map_widget.h"

namespace tessera::console {

MainWindow::MainWindow(EmbeddedOptions demo, QWidget* parent)
    : QMainWindow(parent),
      demo_(std::move(demo)),
      heatmap_(new widgets::HeatmapWidget),
      jobModel_(new widgets::JobTableModel(this)),
      pendingProxy_(new widgets::JobFilterProxy(this)),
      runningProxy_(new widgets::JobFilterProxy(this)),
      inspector_(new widgets::JobInspector),
      migMap_(new widgets::MigMapWidget),
      migEditor_(new widgets::MigEditor),
      treeModel_(new widgets::ClusterTreeModel(this)),
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
  wireGestures();
  sessionLabel_ = new QLabel;
  totals_ = new QLabel;
  statusBar()->addWidget(totals_, 1);
  statusBar()->addPermanentWidget(sessionLabel_);
  resize(1440, 900);
  restoreSettings();
  openEmbedded();
}

MainWindow::~MainWindow() = default;

void MainWindow::buildToolbar() {
  auto* bar = addToolBar(tr("Session"));
  bar->setObjectName(QStringLiteral("toolbar"));
  bar->addAction(tr("Embedded demo"), this, &MainWindow::openEmbedded);
  bar->addAction(tr("Connect…"), this, &MainWindow::openConnectDialog)
      ->setShortcut(QKeySequence(tr("Ctrl+K")));
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
                 widgets::HeatmapLayer::Gap, widgets::HeatmapLayer::State})
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
}

QTableView* MainWindow::makeJobView(widgets::JobFilterProxy* proxy) {
  proxy->setSourceModel(jobModel_);
  auto* view = new QTableView;
  view->setModel(proxy);
  view->setSortingEnabled(true);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->setSelectionMode(QAbstractItemView::SingleSelection);
  view->setDragEnabled(true);
  view->setAcceptDrops(true);
  view->setDropIndicatorShown(true);
  view->setDragDropMode(QAbstractItemView::DragDrop);
  view->horizontalHeader()->setSectionsMovable(true);
  view->horizontalHeader()->setStretchLastSection(true);
  view->verticalHeader()->hide();
  connect(view->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          [this, proxy](const QModelIndex& current) {
            if (current.isValid())
              selectJob(proxy->data(current, widgets::JobTableModel::JobIdRole).toULongLong());
          });
  return view;
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
  auto* pending = dock(tr("Pending"), QStringLiteral("pending"), makeJobView(pendingProxy_),
                       Qt::BottomDockWidgetArea);
  auto* running = dock(tr("Running"), QStringLiteral("running"), makeJobView(runningProxy_),
                       Qt::BottomDockWidgetArea);
  tabifyDockWidget(pending, running);
  pending->raise();
  dock(tr("Why pending"), QStringLiteral("inspector"), inspector_, Qt::RightDockWidgetArea);
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

void MainWindow::restoreSettings() {
  QSettings s;
  restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  restoreState(s.value(QStringLiteral("window/state")).toByteArray());
  layer_->setCurrentIndex(s.value(QStringLiteral("heatmap/layer"), 0).toInt());
}

void MainWindow::closeEvent(QCloseEvent* event) {
  QSettings s;
  s.setValue(QStringLiteral("window/geometry"), saveGeometry());
  s.setValue(QStringLiteral("window/state"), saveState());
  s.setValue(QStringLiteral("heatmap/layer"), layer_->currentIndex());
  QMainWindow::closeEvent(event);
}

void MainWindow::useSession(std::shared_ptr<ClusterSession> session, const QString& description,
                            std::shared_ptr<Backend> embedded) {
  delete session_;
  embedded_ = std::move(embedded);
  speed_->setEnabled(embedded_ != nullptr);
  session_ = new widgets::ConsoleSession(std::move(session), description, this);
  connectSession();
  sessionLabel_->setText(description);
  log(tr("Session: %1").arg(description));
  session_->refresh();
  session_->setRefreshInterval(1000);
}

void MainWindow::connectSession() {
  using widgets::ConsoleSession;
  connect(session_, &ConsoleSession::snapshotReady, this, &MainWindow::showSnapshot);
  connect(session_, &ConsoleSession::jobsReady, this, &MainWindow::showJobs);
  connect(session_, &ConsoleSession::explanationReady, inspector_,
          &widgets::JobInspector::setExplanation);
  connect(session_, &ConsoleSession::actionDone, this,
          [this](const QString& what, const CommandResult& r, bool dryRun) {
            log((dryRun ? tr("Dry run: %1 → %2") : tr("%1 → %2"))
                    .arg(what, QString::fromStdString(r.message)));
            if (dryRun) migEditor_->showImpact(QString::fromStdString(r.message));
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
  now_ = s.now;
  heatmap_->setSnapshot(s);
  migMap_->setSnapshot(s);
  inspector_->setNow(s.now);
  double busy = 0, sm = 0;
  bool telemetry = false;
  for (const NodeView& n : s.nodes)
    for (const GpuView& g : n.gpus)
      if (g.util) {
        telemetry = true;
        busy += *g.util * g.allocated;
        sm += g.smActive.value_or(0) * g.allocated;
      }
  QString text = tr("GPUs %1 / %2 allocated").arg(s.gpusAllocated, 0, 'f', 1).arg(s.gpusTotal);
  if (telemetry) text += tr(", %1 busy, %2 SM-active").arg(busy, 0, 'f', 1).arg(sm, 0, 'f', 1);
  text += tr(" · %1 pending, %2 running · cycle %3 ms")
              .arg(s.pendingJobs)
              .arg(s.runningJobs)
              .arg(s.lastCycleMs, 0, 'f', 1);
  totals_->setText(text);
}

void MainWindow::showJobs(const std::vector<JobInfo>& jobs) {
  jobModel_->setJobs(jobs, now_);
  // The MIG map marks free slices no waiting request can use: the demand is what is pending.
  std::set<std::string> demand;
  for (const JobInfo& j : jobs)
    if (j.row.state == JobState::Pending && j.row.job.perTask.kind == GpuRequest::Kind::Mig)
      demand.insert(j.row.job.perTask.migProfile);
  migMap_->setDemand({demand.begin(), demand.end()});
}

void MainWindow::log(const QString& line, bool error) {
  auto* item = new QListWidgetItem(line);
  if (error) item->setForeground(Qt::red);
  activity_->addItem(item);
  activity_->scrollToBottom();
  if (error) statusBar()->showMessage(line, 8000);
}

}  // namespace tessera::console
