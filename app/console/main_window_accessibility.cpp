// The main window's widgets named for assistive technology (screen readers read the accessible
// name; without one they read the class or nothing), each with what it shows.
#include <QComboBox>
#include <QLineEdit>
#include <QListWidget>
#include <QTableView>
#include <QTreeView>

#include "console/main_window.h"
#include "gantt_widget.h"
#include "heatmap_widget.h"
#include "idle_gpu_panel.h"
#include "job_inspector.h"
#include "job_queue_view.h"
#include "mig_editor.h"
#include "mig_map_widget.h"
#include "node_admission_panel.h"
#include "overview_panel.h"
#include "utilization_chart.h"

namespace tessera::console {

void MainWindow::nameWidgetsForAccessibility() {
  const std::vector<std::pair<QWidget*, QString>> names{
      {heatmap_, tr("GPU heatmap")},
      {findChild<widgets::JobQueueView*>(QStringLiteral("pendingJobs")), tr("Pending jobs")},
      {findChild<widgets::JobQueueView*>(QStringLiteral("runningJobs")), tr("Running jobs")},
      {inspector_, tr("Why the selected job is pending")},
      {migMap_, tr("MIG map")},
      {migEditor_, tr("MIG repartition editor")},
      {chart_, tr("Utilization charts")},
      {idlePanel_, tr("Idle GPUs")},
      {gantt_, tr("Timeline of running jobs and reservations")},
      {tree_, tr("Hardware tree")},
      {activity_, tr("Activity log")},
      {overview_, tr("Overview")},
      {admission_ ? admission_->view() : nullptr, tr("Nodes awaiting admission")},
      {search_, tr("Search jobs, nodes, GPUs")},
      {layer_, tr("Heatmap layer")},
      {speed_, tr("Demo speed")}};
  for (const auto& [widget, name] : names)
    if (widget) widget->setAccessibleName(name);
}

}  // namespace tessera::console
