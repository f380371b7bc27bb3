#pragma once
// The console's queue tables: JobTableModel shows the session's JobInfo rows (one job a row) and
// JobFilterProxy turns it into the "pending" and "running" views (state, team and free-text
// filters, sorting on raw numbers). The job list is refreshed about every second, so the model
// updates in place by job id instead of resetting: selection, scroll position and persistent
// indexes survive a refresh. Dragging a pending job onto another asks the console to move it in
// the queue (moveRequested); the model never reorders itself, the engine's next answer does.
#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <QString>

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "service/session.h"

namespace tessera::widgets {

class JobTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    Id,
    Name,
    Team,
    PriorityClass,
    Workload,
    Gang,
    Request,
    State,
    Wait,
    QueuePosition,
    Eta,
    Reason,      // pending: the dominant reason; running: the placement "node/gpus"
    ClusterJob,  // executor slurm: the Slurm job, its state, and Slurm's reason when it has one
    ColumnCount
  };
  // Raw value behind a cell, for sorting: numbers for the numeric columns (seconds, positions,
  // GPU demand), the display text otherwise. Missing values sort last in ascending order.
  static constexpr int SortRole = Qt::UserRole + 1;
  static constexpr int JobIdRole = Qt::UserRole + 2;  // the row's JobId (quint64), any column
  static constexpr int StateRole = Qt::UserRole + 3;  // the row's JobState as int, any column
  static constexpr int TeamRole = Qt::UserRole + 4;   // the row's team, any column
  // What a dragged job travels as: its id in ASCII decimal.
  static QString mimeType() { return QStringLiteral("application/x-tessera-job"); }

  explicit JobTableModel(QObject* parent = nullptr);

  // Replaces the rows with `jobs`, in that order, by job id: rows of jobs still present are
  // updated (dataChanged where a cell's text or sort value changed), jobs gone are removed and
  // new jobs inserted; rows are moved (not reset) where the order changed. `now` is the engine
  // clock that wait times and relative ETAs are measured from. Ids must be unique.
  void setJobs(std::vector<JobInfo> jobs, Seconds now);
  [[nodiscard]] Seconds now() const { return now_; }
  [[nodiscard]] const JobInfo& jobAt(int row) const;
  [[nodiscard]] int rowOf(JobId id) const;  // -1 when not shown

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;

  QStringList mimeTypes() const override;
  QMimeData* mimeData(const QModelIndexList& indexes) const override;
  bool canDropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                       const QModelIndex& parent) const override;
  // Emits moveRequested and returns true when the drop is a valid queue move; changes nothing.
  bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                    const QModelIndex& parent) override;
  Qt::DropActions supportedDragActions() const override;
  Qt::DropActions supportedDropActions() const override;

  // The display text of a request ("8 GPU", "2x 3g.40gb", "0.25 GPU") and of a duration
  // ("45s", "12m", "3h 05m", "2d 4h"): shared with the inspector and tests.
  static QString requestText(const Job& job);
  static QString durationText(Seconds s);
  // "node/0-3, node2/4 [3g.40gb@0]": where a running job's tasks are.
  static QString placementText(const JobInfo& info);
  // Slurm's state and reason for a job ("PENDING: Resources").
  static QString slurmStateText(const ExternalJob& x);
  // Whether Slurm's view of the job is not the one Tessera's state implies (see the .cpp).
  static bool slurmDisagrees(const JobInfo& info);

 signals:
  // The operator dropped `job` just ahead of `before` in the pending queue; before == kNoJob
  // (0) means to the bottom. The console turns this into the engine's cmd::Move.
  void moveRequested(tessera::JobId job, tessera::JobId before);

 private:
  // Everything a row shows, computed once per refresh: data() only reads it, and setJobs()
  // compares old and new to find which cells changed.
  struct Cells {
    std::array<QString, ColumnCount> text;
    std::array<QVariant, ColumnCount> sort;
    QString tip;
    bool operator==(const Cells&) const = default;
  };
  struct Row {
    JobInfo info;
    Cells cells;
  };
  [[nodiscard]] Cells cellsOf(const JobInfo& info) const;
  [[nodiscard]] QString reasonText(const JobInfo& info) const;
  [[nodiscard]] static QString externalText(const JobInfo& info);
  [[nodiscard]] Seconds waitOf(const JobInfo& info) const;
  void removeGone(const std::vector<JobInfo>& jobs);
  void placeInOrder(std::vector<JobInfo>& jobs);
  void updateCells();
  [[nodiscard]] int findFrom(JobId id, int from) const;
  [[nodiscard]] bool isPending(int row) const;
  [[nodiscard]] std::optional<JobId> droppedJob(const QMimeData* data) const;
  [[nodiscard]] std::optional<JobId> dropTarget(int row, const QModelIndex& parent) const;

  std::vector<Row> rows_;
  Seconds now_ = 0;
};

// The pending and running views over a JobTableModel: which states, which team, and a text that
// must appear in the name, id or team (case-insensitive). Sorts on JobTableModel::SortRole.
class JobFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  enum class StateFilter : quint8 {
    All,
    Pending,   // waiting in the queue
    Running,   // admitted or running
    Active,    // pending, admitted or running
    Finished,  // completed, failed, cancelled, preempted
  };

  explicit JobFilterProxy(QObject* parent = nullptr);
  void setStateFilter(StateFilter f);
  [[nodiscard]] StateFilter stateFilter() const { return state_; }
  void setTeamFilter(const QString& team);  // empty = every team
  [[nodiscard]] QString teamFilter() const { return team_; }
  void setSearchText(const QString& text);  // empty = no text filter
  [[nodiscard]] QString searchText() const { return search_; }
  [[nodiscard]] static bool stateMatches(StateFilter f, JobState s);

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  StateFilter state_ = StateFilter::All;
  QString team_;
  QString search_;
};

}  // namespace tessera::widgets
