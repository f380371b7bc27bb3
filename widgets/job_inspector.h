#pragma once
// The "why pending" panel: one job's Explanation as the engine gave it, laid out for an
// operator. The dominant reason in large text, the per-cause node rejection counts, the jobs
// and teams in the way (job ids are links), the queue position and ETA, the fragmentation
// note, the job's history, and the engine's counterfactuals as clickable suggestions.
//
// The widget only shows and asks: clicks become signals (jobActivated, suggestionActivated,
// actionRequested) that the console turns into navigation, an editor pre-filled with the
// suggestion, or an engine command. It holds no session and executes nothing itself.
#include <QStringList>
#include <QWidget>

#include <optional>
#include <unordered_map>
#include <vector>

#include "scheduler/explain.h"
#include "service/session.h"

class QComboBox;
class QLabel;
class QListWidget;
class QPushButton;

namespace tessera::widgets {

// What the inspector's buttons ask the console to do with the shown job (cmd::Hold, ...).
enum class JobAction : quint8 { Hold, Release, Preempt, Cancel, SetPriority };

class JobInspector : public QWidget {
  Q_OBJECT
 public:
  explicit JobInspector(QWidget* parent = nullptr);

  // Shows `x`. ETAs are shown relative to the engine clock given by setNow (absolute engine
  // seconds until it is known).
  void setExplanation(const Explanation& x);
  void setNow(Seconds now);
  // Empties the panel ("No job selected") and disables the actions.
  void clear();
  // The classes offered by "Set priority" (the engine's priority classes, by name).
  void setPriorityClasses(const QStringList& classes);
  // The jobs as the lists have them: the selected job's Slurm side (executor slurm: its Slurm id,
  // state and reason under the title) and, for an MPS request, the limits its MPS server
  // enforces (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, CUDA_MPS_PINNED_DEVICE_MEM_LIMIT); both stay
  // current as the job lists refresh.
  void setClusterJobs(const std::vector<JobInfo>& jobs);

  [[nodiscard]] JobId job() const { return x_ ? x_->job : kNoJob; }
  [[nodiscard]] const std::optional<Explanation>& explanation() const { return x_; }

  // The per-cause rejection lines, largest first ("40 not enough free GPUs"): shown in the
  // panel and reused by tests.
  [[nodiscard]] static QStringList rejectionLines(const NodeFilterResult& filter);
  [[nodiscard]] static QString counterfactualKindText(Counterfactual::Kind k);

 signals:
  void jobActivated(tessera::JobId job);  // a blocking job's id was clicked
  void suggestionActivated(const tessera::Counterfactual& suggestion);
  // priorityClass: the chosen class for SetPriority, empty otherwise.
  void actionRequested(tessera::JobId job, tessera::widgets::JobAction action,
                       const QString& priorityClass);

 private:
  void buildUi();
  QLabel* addLabel(const char* objectName, bool links);
  QPushButton* addAction(QLayout* row, const QString& text, JobAction action);
  void showHeader();
  void showClusterJob();
  void showMpsLimits();
  void showBlockers();
  void showQueue();
  void showSuggestions();
  void showHistory();
  void updateActions();
  void onLink(const QString& href);
  void request(JobAction action);

  std::optional<Explanation> x_;
  std::optional<Seconds> now_;
  std::unordered_map<JobId, JobInfo> clusterJobs_;  // the jobs that have a Slurm job
  std::unordered_map<JobId, GpuRequest> mpsJobs_;   // the jobs that ask for MPS shares
  QLabel* title_ = nullptr;
  QLabel* reason_ = nullptr;
  QLabel* clusterJob_ = nullptr;
  QLabel* mpsLimits_ = nullptr;
  QLabel* summary_ = nullptr;
  QLabel* rejections_ = nullptr;
  QLabel* blockers_ = nullptr;
  QLabel* queue_ = nullptr;
  QLabel* fragmentation_ = nullptr;
  QLabel* placement_ = nullptr;
  QLabel* suggestions_ = nullptr;
  QListWidget* history_ = nullptr;
  QComboBox* priorityClass_ = nullptr;
  std::vector<std::pair<JobAction, QPushButton*>> buttons_;
};

}  // namespace tessera::widgets
