#pragma once
// The console's main window: the topology heatmap in the middle; dockable, restorable panels
// for the pending and running queues, the job inspector ("why pending"), the MIG map with its
// repartition editor, the hardware tree and an activity log of every action and its result; a
// toolbar with the session (embedded demo or a tesserad), the demo's speed, the heatmap layer
// and search; cluster totals in the status bar. Every gesture becomes one operator command sent
// through the session - the same path as the CLI and the API.
#include <QMainWindow>

#include <functional>
#include <memory>

#include "console/console_layout.h"
#include "console/session_factory.h"

class QAbstractItemView;
class QAction;
class QComboBox;
class QMenu;
class QTimer;
class QLabel;
class QLineEdit;
class QListWidget;
class QTableView;
class QTreeView;

namespace tessera::widgets {
class ClusterTreeModel;
class ConsoleSession;
class GanttWidget;
class HeatmapWidget;
class IdleGpuModel;
class IdleGpuPanel;
class MetricFetcher;
class UtilizationChart;
class JobFilterProxy;
class JobInspector;
class JobQueueView;
class JobTableModel;
class MigEditor;
class MigMapWidget;
class NodeAdmissionModel;
class NodeAdmissionPanel;
class OverviewModel;
class OverviewPanel;
class ReasonFilterProxy;
class ReportExportDialog;
class SharingStudyDialog;
}  // namespace tessera::widgets

namespace tessera::console {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // Opens on the embedded demo described by `demo` (its cluster also fills the hardware tree).
  explicit MainWindow(EmbeddedOptions demo, QWidget* parent = nullptr);
  ~MainWindow() override;

  // For tests and screenshots: the panels, and the latest snapshot shown.
  [[nodiscard]] widgets::HeatmapWidget* heatmap() const { return heatmap_; }
  [[nodiscard]] widgets::MigMapWidget* migMap() const { return migMap_; }
  [[nodiscard]] widgets::JobTableModel* jobs() const { return jobModel_; }
  // The session's last snapshot, as the panels show it.
  [[nodiscard]] const ClusterSnapshot& lastSnapshot() const { return lastSnapshot_; }
  [[nodiscard]] widgets::ConsoleSession* session() const { return session_; }
  [[nodiscard]] QListWidget* activity() const { return activity_; }
  // "Export report…" (Ctrl+E), and its dialog once opened (nullptr before).
  [[nodiscard]] QAction* exportReportAction() const { return exportReport_; }
  [[nodiscard]] widgets::ReportExportDialog* reportDialog() const { return reportDialog_; }
  // "Sharing study…": the four GPU sharing modes on the console's cluster, once opened.
  [[nodiscard]] QAction* sharingStudyAction() const { return sharingStudy_; }
  [[nodiscard]] widgets::SharingStudyDialog* sharingStudyDialog() const { return sharingDialog_; }
  // The embedded demo's engine (nullptr when connected to a tesserad): benchmarks and tests
  // drive it directly, as another client would.
  [[nodiscard]] const std::shared_ptr<Backend>& embeddedBackend() const { return embedded_; }
  // Replaces the session (the embedded demo or a remote tesserad). `embeddedDatabase`: the
  // embedded demo's database file, which reports then read directly (with progress).
  void useSession(std::shared_ptr<ClusterSession> session, const QString& description,
                  std::shared_ptr<Backend> embedded, std::string embeddedDatabase = {});
  // Opens (or raises) the report export dialog.
  void openReportDialog();
  void openSharingStudy();
  // "Settings…" (Ctrl+,): opens the settings dialog (language), window-modal, not blocking.
  [[nodiscard]] QAction* settingsAction() const { return settings_; }
  void openSettingsDialog();
  // The "Idle GPUs" panel (rule, list, reclaim actions).
  [[nodiscard]] widgets::IdleGpuPanel* idlePanel() const { return idlePanel_; }
  // The Overview panel: the first thing shown; its pending reasons filter the Pending queue.
  [[nodiscard]] widgets::OverviewPanel* overviewPanel() const { return overview_; }
  [[nodiscard]] widgets::NodeAdmissionPanel* admissionPanel() const { return admission_; }

  // Layouts (console/console_layout.h): the View menu's presets and "Reset layout". The layout
  // is kept per screen size when the window closes and restored on a screen of that size.
  void applyLayout(LayoutPreset preset);
  [[nodiscard]] LayoutPreset layoutPreset() const { return preset_; }
  [[nodiscard]] QAction* layoutAction(LayoutPreset preset) const;
  [[nodiscard]] QAction* resetLayoutAction() const { return resetLayout_; }
  void resetLayout();

  // For screenshots (--screenshot): runs the embedded demo fast until the utilization charts
  // hold some history (at most 30 s), back at its usual speed, then calls `ready` once the
  // charts were fetched again, so a picture never shows empty charts.
  void whenChartsFilled(std::function<void()> ready);

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void buildToolbar();
  void buildDocks();
  void buildUtilizationDocks();
  void buildOverviewDock();
  void buildAdmissionDock();
  void nameWidgetsForAccessibility();
  void showPendingOfKind(const QString& kind, const QString& label);
  void fetchMetrics();
  widgets::JobQueueView* makeJobView(widgets::JobFilterProxy* proxy, const QString& name);
  void addJobActions(QAbstractItemView* view);
  void addColumnChooser(widgets::JobQueueView* view);
  void showTeamHoldings(const ClusterSnapshot& s);
  void restoreSettings();
  void buildViewMenu();
  void addFocusActions(QMenu* menu);
  [[nodiscard]] QString layoutGroup() const;
  bool restoreLayout();
  void saveLayout();
  void raisePanel(const QString& dockName);
  void connectSession();
  void showSnapshot(const ClusterSnapshot& s);
  [[nodiscard]] QString executorText(const ClusterSnapshot::Executor& x) const;
  void showJobs(const std::vector<JobInfo>& jobs);
  void selectJob(JobId id);
  void log(const QString& line, bool error = false);
  void sendCommand(const Command& c, bool dryRun);
  void wireGestures();
  void openConnectDialog();
  void openEmbedded();
  void applySearch(const QString& text);
  [[nodiscard]] widgets::ReportRunner reportRunner() const;
  void updateReportClock();
  void saveReportSettings();
  static void applyPalette(bool dark);

  EmbeddedOptions demo_;
  std::shared_ptr<Backend> embedded_;  // set while the demo runs (speed control)
  std::string embeddedDatabase_;       // its database file (reports read it)
  // The threads reports run on: a member, so the window's destruction stops and joins them
  // before Qt deletes the child dialog their results would go to.
  std::shared_ptr<ReportWorkers> reportWorkers_ = std::make_shared<ReportWorkers>();
  widgets::ReportExportDialog* reportDialog_ = nullptr;
  QAction* exportReport_ = nullptr;
  QAction* sharingStudy_ = nullptr;
  widgets::SharingStudyDialog* sharingDialog_ = nullptr;
  widgets::ConsoleSession* session_ = nullptr;
  widgets::HeatmapWidget* heatmap_;
  widgets::JobTableModel* jobModel_;
  widgets::ReasonFilterProxy* pendingProxy_;
  widgets::JobFilterProxy* runningProxy_;
  widgets::JobInspector* inspector_;
  widgets::MigMapWidget* migMap_;
  widgets::MigEditor* migEditor_;
  widgets::ClusterTreeModel* treeModel_;
  widgets::UtilizationChart* chart_;
  widgets::IdleGpuModel* idleModel_;
  widgets::IdleGpuPanel* idlePanel_ = nullptr;
  widgets::OverviewModel* overviewModel_ = nullptr;
  widgets::OverviewPanel* overview_ = nullptr;
  widgets::NodeAdmissionModel* admissionModel_ = nullptr;
  widgets::NodeAdmissionPanel* admission_ = nullptr;
  QAction* settings_ = nullptr;
  widgets::GanttWidget* gantt_;
  widgets::MetricFetcher* fetcher_ = nullptr;
  QTimer* metricsTimer_;
  ClusterSnapshot lastSnapshot_;
  QTreeView* tree_ = nullptr;
  QListWidget* activity_;
  QComboBox* layer_ = nullptr;
  QComboBox* speed_ = nullptr;
  QLineEdit* search_ = nullptr;
  QLabel* sessionLabel_ = nullptr;
  QLabel* totals_ = nullptr;
  Seconds now_ = 0;
  LayoutPreset preset_ = LayoutPreset::Operations;
  bool layoutPending_ = true;  // no saved layout for this screen: the preset applies at show
  std::array<QAction*, kLayoutPresets.size()> layoutActions_{};
  QAction* resetLayout_ = nullptr;
};

}  // namespace tessera::console
