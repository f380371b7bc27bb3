#pragma once
// The console's "idle allocated GPUs" table: GPUs that jobs hold but barely use, from successive
// ClusterSnapshots. Each GPU's utilization is tracked across snapshots so the table can say since
// when it has been idle; a GPU is listed once its utilization stayed below the threshold for at
// least the minimum duration. GPUs without telemetry are never listed: unknown is not idle.
// Reclaiming a GPU (preempt, cancel) is the console's business: JobIdRole names the job(s).
#include <QAbstractTableModel>
#include <QString>

#include <map>
#include <optional>
#include <vector>

#include "service/session.h"

namespace tessera::widgets {

// Tracks one GPU's utilization samples since its occupants last changed (or its telemetry
// resumed), keeping only what answers "idle since when, below threshold t" for any t: the
// samples that are higher than every later one (a suffix-maximum stack), each with the time of
// the sample that followed it. So the threshold can change without losing the history.
class IdleRun {
 public:
  void add(Seconds time, double util);
  // The first time from which every sample stayed below `threshold`; nullopt when the latest
  // sample is not below it or there is none.
  [[nodiscard]] std::optional<Seconds> idleSince(double threshold) const;
  [[nodiscard]] bool empty() const { return entries_.empty(); }

 private:
  struct Entry {
    Seconds time = 0;
    double util = 0;
    std::optional<Seconds> next;  // time of the sample after this one
  };
  static constexpr size_t kMaxEntries = 256;
  Seconds first_ = 0;
  std::vector<Entry> entries_;  // utils strictly decreasing from front to back
};

class IdleGpuModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    GpuColumn,
    JobsColumn,
    TeamColumn,
    AllocatedColumn,
    UtilColumn,
    SmActiveColumn,
    IdleSinceColumn,
    IdleForColumn,
    ColumnCount
  };
  enum Role {
    JobIdRole = Qt::UserRole + 1,  // the first job on the GPU (qulonglong)
    JobIdsRole,                    // every job on the GPU (QVariantList of qulonglong)
    SortRole,                      // a number or text that sorts as the column should
    GpuKeyRole,                    // "node/index"
  };

  explicit IdleGpuModel(QObject* parent = nullptr);

  // Adds the snapshot to each GPU's history and updates the rows in place.
  void setSnapshot(const ClusterSnapshot& snapshot);
  // Utilization (0..1) below which an allocated GPU counts as idle; default 0.05.
  void setThreshold(double util);
  [[nodiscard]] double threshold() const { return threshold_; }
  // How long a GPU must have been idle to be listed; default 0 (listed at once).
  void setMinimumIdle(Seconds duration);
  [[nodiscard]] Seconds minimumIdle() const { return minimumIdle_; }

  // "node/index" of a row, and the row of a key (-1 = not listed).
  [[nodiscard]] QString gpuKey(int row) const;
  [[nodiscard]] int rowOf(const QString& gpuKey) const;
  [[nodiscard]] std::optional<Seconds> idleSince(int row) const;
  // The engine clock of the latest snapshot.
  [[nodiscard]] Seconds now() const { return snapshot_.now; }

  // A job to reclaim, as a confirmation names it: its team, how many listed GPUs it holds and
  // the GPU-hours they have been idle (its share of each GPU times how long that GPU is idle).
  struct IdleJob {
    JobId job = kNoJob;
    QString team;
    int gpus = 0;
    double idleGpuHours = 0;
  };
  // The distinct jobs on `rows`, in order of first appearance; each one's GPUs and GPU-hours
  // count every listed GPU it holds, selected or not, since reclaiming the job frees them all.
  [[nodiscard]] std::vector<IdleJob> idleJobs(const QList<int>& rows) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  // A GPU's key, ordered by node name then index so rows keep their order across snapshots.
  struct Key {
    QString node;
    int index = 0;
    bool operator==(const Key&) const = default;
    bool operator<(const Key& o) const {
      const int c = node.compare(o.node);
      return c != 0 ? c < 0 : index < o.index;
    }
  };
  struct Tracked {
    std::vector<JobId> jobs;  // the occupants the run belongs to
    IdleRun run;
  };
  // One job's part of a GPU: what reclaiming it frees.
  struct JobShare {
    JobId job = kNoJob;
    QString team;
    double share = 0;  // of the GPU, 0..1
    bool operator==(const JobShare&) const = default;
  };
  struct Row {
    Key key;
    std::vector<JobId> jobs;
    std::vector<JobShare> shares;  // per job, in the order of `jobs`
    QString team;
    double allocated = 0;
    double util = 0;
    std::optional<double> smActive;
    Seconds idleSince = 0;
    bool operator==(const Row&) const = default;
  };

  void track(const ClusterSnapshot& snapshot);
  [[nodiscard]] std::vector<Row> computeRows() const;
  void applyRows(std::vector<Row> rows);
  [[nodiscard]] QVariant display(const Row& r, int column) const;
  [[nodiscard]] QVariant sortValue(const Row& r, int column) const;

  std::map<Key, Tracked> tracked_;
  std::map<Key, const GpuView*> latest_;  // into snapshot_
  ClusterSnapshot snapshot_;
  std::vector<Row> rows_;
  double threshold_ = 0.05;
  Seconds minimumIdle_ = 0;
};

// "HH:MM:SS" of the engine clock, with the day when it is not the first ("d3 04:05:06").
QString formatEngineTime(Seconds t);
// "1h 05m", "12m", "40s".
QString formatDurationShort(Seconds d);

}  // namespace tessera::widgets
