#pragma once
// The console's "Idle GPUs" panel: the idle rule (utilization below N % for at least M minutes
// of engine time, kept in the settings), the IdleGpuModel's table (sortable, several rows may be
// selected) and the reclaim actions on the selection - Preempt job, Cancel job - as buttons and
// in the context menu. A reclaim first asks for confirmation, naming each job, its team and the
// GPU-hours it has been idle; then it emits actionRequested once per distinct job, and the
// console sends the command through the same path as the inspector's buttons. Running jobs
// cannot be held (the engine holds pending jobs only), so Hold is not offered here.
#include <QWidget>

#include <functional>
#include <vector>

#include "idle_gpu_model.h"
#include "job_inspector.h"

class QAction;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;

namespace tessera::widgets {

class IdleGpuPanel : public QWidget {
  Q_OBJECT
 public:
  // Asks the operator (title, text); true to go ahead. The default is a QMessageBox question.
  using Confirm = std::function<bool(const QString& title, const QString& text)>;

  // Shows `model` (not owned) and applies the saved rule to it.
  explicit IdleGpuPanel(IdleGpuModel* model, QWidget* parent = nullptr);

  [[nodiscard]] QTableView* view() const { return view_; }
  [[nodiscard]] QSpinBox* thresholdBox() const { return threshold_; }  // percent
  [[nodiscard]] QSpinBox* minimumBox() const { return minimum_; }      // minutes
  [[nodiscard]] QAction* preemptAction() const { return preempt_; }
  [[nodiscard]] QAction* cancelAction() const { return cancel_; }
  void setConfirm(Confirm confirm) { confirm_ = std::move(confirm); }

  // The distinct jobs on the selected rows (see IdleGpuModel::idleJobs).
  [[nodiscard]] std::vector<IdleGpuModel::IdleJob> selectedJobs() const;
  // Confirms and requests `action` (Preempt or Cancel) for every selected job once; returns how
  // many jobs were requested (0 when nothing is selected or the operator declined).
  int reclaim(JobAction action);
  [[nodiscard]] static QString confirmationText(JobAction action,
                                                const std::vector<IdleGpuModel::IdleJob>& jobs);

 signals:
  void jobActivated(tessera::JobId job);  // a row was double-clicked: show its job
  // As JobInspector::actionRequested (priorityClass is always empty here).
  void actionRequested(tessera::JobId job, tessera::widgets::JobAction action,
                       const QString& priorityClass);

 private:
  QWidget* buildRuleBar();
  void applyRule();
  void updateActions();
  [[nodiscard]] QAction* addReclaim(const QString& text, const char* name, JobAction action);

  IdleGpuModel* model_;
  QSortFilterProxyModel* sorted_;
  QTableView* view_;
  QSpinBox* threshold_ = nullptr;
  QSpinBox* minimum_ = nullptr;
  QAction* preempt_ = nullptr;
  QAction* cancel_ = nullptr;
  Confirm confirm_;
};

}  // namespace tessera::widgets
