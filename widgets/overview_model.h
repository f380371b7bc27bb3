#pragma once
// The console's Overview: what an operator checks first, as a tree of sections of labelled
// figures - capacity (GPUs, allocated, busy, SM-active and the gap between allocated and busy),
// pending jobs by their dominant reason, free GPUs no job can use by cause (nodes out, faults,
// fragmentation), the largest idle allocations, faults and nodes out, and the executor. All of
// it is the snapshot and the job list the session already delivers, adapted; nothing new is
// asked of the engine.
#include <QAbstractItemModel>

#include <array>
#include <optional>
#include <vector>

#include "service/session.h"
#include "topology/gpu_catalog.h"

namespace tessera::widgets {

// The GPUs busy (utilization) and SM-active, each weighted by the share allocated; nullopt when
// no GPU reports telemetry (unknown, not zero). The status bar and the Overview both show it.
struct BusyGpus {
  double busy = 0;
  double smActive = 0;
};
[[nodiscard]] std::optional<BusyGpus> busyGpus(const ClusterSnapshot& snapshot);

class OverviewModel : public QAbstractItemModel {
  Q_OBJECT
 public:
  enum Section { Capacity, Pending, Stranded, Idle, Nodes, Executor, SectionCount };
  enum Column { LabelColumn, ValueColumn, ColumnCount };
  enum Role {
    // Pending rows: the reason's kind (reasonKind), to filter the queue by.
    ReasonKindRole = Qt::UserRole + 1,
    // Idle rows: the job (qulonglong), to inspect.
    JobIdRole,
  };
  // A GPU counts as idle below this utilization (the Idle GPUs panel's default rule).
  static constexpr double kIdleUtil = 0.05;
  // Rows per list (reasons, idle jobs, nodes out): the largest first.
  static constexpr int kMaxRows = 5;

  explicit OverviewModel(QObject* parent = nullptr);

  // The catalog tells MIG geometry for the fragmentation count (none: MIG GPUs count 0).
  void setCatalog(const GpuCatalog* catalog);
  void setSnapshot(const ClusterSnapshot& snapshot);
  void setJobs(const std::vector<JobInfo>& jobs);

  // What groups pending jobs: the template of the sentence the reason starts from ("team %1 uses
  // %2 of its %3 guaranteed %4 GPUs", also when "and may borrow ..." extends it), so the same
  // cause with other numbers is one row.
  [[nodiscard]] static QString reasonKind(const Text& reason);
  // That template translated, its arguments shown as "…".
  [[nodiscard]] static QString reasonKindLabel(const Text& reason);

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation,
                      int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    QString label;
    QString value;
    QVariant key;  // ReasonKindRole or JobIdRole, by section
  };
  void rebuild();
  [[nodiscard]] std::vector<Row> capacityRows() const;
  [[nodiscard]] std::vector<Row> pendingRows() const;
  [[nodiscard]] std::vector<Row> strandedRows() const;
  [[nodiscard]] std::vector<Row> idleRows() const;
  [[nodiscard]] std::vector<Row> nodeRows() const;
  [[nodiscard]] Row nodeOutRow(const NodeView& n) const;
  [[nodiscard]] std::vector<Row> executorRows() const;
  [[nodiscard]] static QString sectionTitle(Section s);

  const GpuCatalog* catalog_ = nullptr;
  ClusterSnapshot snapshot_;
  std::vector<JobInfo> jobs_;
  std::array<std::vector<Row>, SectionCount> rows_;
};

}  // namespace tessera::widgets
