// OverviewModel: the console's Overview panel (see overview_model.h).
#include "overview_model.h"

#include <QCoreApplication>
#include <QRegularExpression>

#include <algorithm>
#include <map>

#include "core/engine_text.h"
#include "engine_text.h"
#include "job_table_model.h"
#include "node_holds_text.h"
#include "service/gpu_fragmentation.h"

namespace tessera::widgets {
namespace {

// Sections are top-level rows (internal id 0); a figure's internal id is its section + 1.
constexpr quintptr kTopLevel = 0;

QString gpus(double n) {
  return OverviewModel::tr("%1 GPUs").arg(n, 0, 'f', 1);
}

QString gpusOf(double n, double total) {
  return total > 0
             ? OverviewModel::tr("%1 GPUs (%2 %)").arg(n, 0, 'f', 1).arg(100 * n / total, 0, 'f', 0)
             : gpus(n);
}

// The sentence a reason starts from: a template that begins with its first argument ("%1; %2",
// "%1 and may borrow %2; the job needs %3") extends that argument, which says the cause.
const Text& firstClause(const Text& t) {
  if (!t.isLiteral() && t.patternText().starts_with("%1") && !t.args().empty())
    return firstClause(t.args()[0]);
  return t;
}

}  // namespace

std::optional<BusyGpus> busyGpus(const ClusterSnapshot& snapshot) {
  BusyGpus out;
  bool telemetry = false;
  for (const NodeView& n : snapshot.nodes)
    for (const GpuView& g : n.gpus)
      if (g.util) {
        telemetry = true;
        out.busy += *g.util * g.allocated;
        out.smActive += g.smActive.value_or(0) * g.allocated;
      }
  if (!telemetry) return std::nullopt;
  return out;
}

OverviewModel::OverviewModel(QObject* parent) : QAbstractItemModel(parent) {
  rebuild();
}

void OverviewModel::setCatalog(const GpuCatalog* catalog) {
  catalog_ = catalog;
  rebuild();
}

void OverviewModel::setSnapshot(const ClusterSnapshot& snapshot) {
  snapshot_ = snapshot;
  rebuild();
}

void OverviewModel::setJobs(const std::vector<JobInfo>& jobs) {
  jobs_ = jobs;
  rebuild();
}

QString OverviewModel::reasonKind(const Text& reason) {
  const Text& first = firstClause(reason);
  return first.isLiteral() ? QString::fromStdString(first.english())
                           : QString::fromUtf8(first.patternText().data(),
                                               static_cast<qsizetype>(first.patternText().size()));
}

QString OverviewModel::reasonKindLabel(const Text& reason) {
  const Text& first = firstClause(reason);
  if (first.isLiteral()) return displayText(first);
  static const QRegularExpression placeholder(QStringLiteral("%\\d+"));
  const QByteArray pattern = reasonKind(reason).toUtf8();
  return QCoreApplication::translate(kEngineTextContext, pattern.constData())
      .replace(placeholder, QStringLiteral("…"));
}

// Reset, not row by row: the figures change every snapshot and there are a few dozen of them.
void OverviewModel::rebuild() {
  beginResetModel();
  rows_[Capacity] = capacityRows();
  rows_[Pending] = pendingRows();
  rows_[Stranded] = strandedRows();
  rows_[Idle] = idleRows();
  rows_[Nodes] = nodeRows();
  rows_[Executor] = executorRows();
  endResetModel();
}

std::vector<OverviewModel::Row> OverviewModel::capacityRows() const {
  const double total = snapshot_.gpusTotal;
  std::vector<Row> rows{{tr("GPUs"), QString::number(total, 'f', 0), {}},
                        {tr("Allocated"), gpusOf(snapshot_.gpusAllocated, total), {}}};
  const auto busy = busyGpus(snapshot_);
  if (!busy) {
    rows.push_back({tr("Busy"), tr("no telemetry"), {}});
    return rows;
  }
  rows.push_back({tr("Busy"), gpusOf(busy->busy, total), {}});
  rows.push_back({tr("SM-active"), gpusOf(busy->smActive, total), {}});
  rows.push_back({tr("Allocated but idle (gap)"),
                  gpusOf(std::max(0.0, snapshot_.gpusAllocated - busy->busy), total),
                  {}});
  return rows;
}

std::vector<OverviewModel::Row> OverviewModel::pendingRows() const {
  struct Group {
    int jobs = 0;
    QString label;
  };
  std::map<QString, Group> groups;
  for (const JobInfo& j : jobs_)
    if (j.row.state == JobState::Pending) {
      Group& g = groups[reasonKind(j.row.reason)];
      if (g.jobs++ == 0) g.label = reasonKindLabel(j.row.reason);
    }
  std::vector<Row> rows;
  for (const auto& [kind, g] : groups) rows.push_back({g.label, QString::number(g.jobs), kind});
  std::stable_sort(rows.begin(), rows.end(),
                   [](const Row& a, const Row& b) { return a.value.toInt() > b.value.toInt(); });
  if (rows.size() > kMaxRows) rows.resize(kMaxRows);
  return rows;
}

std::vector<OverviewModel::Row> OverviewModel::strandedRows() const {
  double out = 0, faulted = 0;
  for (const NodeView& n : snapshot_.nodes)
    for (const GpuView& g : n.gpus) {
      const double free = std::max(0.0, 1.0 - g.allocated);
      if (g.fault)
        faulted += free;
      else if (n.state != "up")
        out += free;
    }
  double fragmented = 0;
  if (catalog_)
    for (const auto& node : gpuFragmentation(snapshot_, FragmentationDemand::of(jobs_), *catalog_))
      for (double share : node) fragmented += share;
  const double free = std::max(0.0, snapshot_.gpusTotal - snapshot_.gpusAllocated);
  return {{tr("Free on nodes down or draining"), gpus(out), {}},
          {tr("Free on faulted GPUs"), gpus(faulted), {}},
          {tr("Fragmented (free, no pending request fits)"), gpusOf(fragmented, free), {}}};
}

// The jobs holding the most GPUs that do next to nothing (below kIdleUtil).
std::vector<OverviewModel::Row> OverviewModel::idleRows() const {
  std::map<JobId, std::pair<double, std::string>> idle;  // job → idle GPUs, team
  for (const NodeView& n : snapshot_.nodes)
    for (const GpuView& g : n.gpus)
      if (g.util && *g.util < kIdleUtil)
        for (const auto& o : g.occupants) {
          auto& [held, team] = idle[o.job];
          held += o.milli / 1000.0;
          team = o.team;
        }
  std::vector<std::pair<JobId, std::pair<double, std::string>>> sorted(idle.begin(), idle.end());
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::vector<Row> rows;
  for (const auto& [job, heldTeam] : sorted) {
    if (rows.size() == kMaxRows) break;
    rows.push_back({tr("Job %1 (%2)").arg(job).arg(QString::fromStdString(heldTeam.second)),
                    gpus(heldTeam.first), QVariant::fromValue<qulonglong>(job)});
  }
  return rows;
}

// A node that is out, with each owner's hold ("operator: draining (psu) · slurm: down (...)"),
// or the state's reason where the session sends no holds.
OverviewModel::Row OverviewModel::nodeOutRow(const NodeView& n) const {
  const QStringList holds = NodeHolds::lines(n, snapshot_.executor.name);
  return {QString::fromStdString(n.name),
          holds.isEmpty() ? displayText(n.stateReason) : holds.join(QStringLiteral(" \u00b7 ")),
          {}};
}

std::vector<OverviewModel::Row> OverviewModel::nodeRows() const {
  int faults = 0, down = 0, draining = 0;
  std::vector<Row> out;
  for (const NodeView& n : snapshot_.nodes) {
    for (const GpuView& g : n.gpus) faults += g.fault ? 1 : 0;
    if (n.state == "up") continue;
    (n.state == "down" ? down : draining) += 1;
    if (out.size() < kMaxRows) out.push_back(nodeOutRow(n));
  }
  std::vector<Row> rows{{tr("GPU faults"), QString::number(faults), {}},
                        {tr("Nodes down"), QString::number(down), {}},
                        {tr("Nodes draining or drained"), QString::number(draining), {}}};
  rows.insert(rows.end(), out.begin(), out.end());
  return rows;
}

std::vector<OverviewModel::Row> OverviewModel::executorRows() const {
  const auto& x = snapshot_.executor;
  if (x.name == "none") return {{tr("Executor"), tr("none (the engine's own simulation)"), {}}};
  const QString synced = x.lastSync > 0 ? tr("%1 ago").arg(JobTableModel::durationText(
                                              std::max<Seconds>(0, snapshot_.now - x.lastSync)))
                                        : tr("never");
  return {{tr("Executor"), QString::fromStdString(x.name), {}},
          {tr("State"), QString::fromStdString(x.state), {}},
          {tr("Last sync"), synced, {}}};
}

QString OverviewModel::sectionTitle(Section s) {
  switch (s) {
    case Capacity:
      return tr("Capacity");
    case Pending:
      return tr("Pending jobs by reason");
    case Stranded:
      return tr("Free GPUs no job can use");
    case Idle:
      return tr("Largest idle allocations");
    case Nodes:
      return tr("Faults and nodes out");
    case Executor:
    case SectionCount:
      break;
  }
  return tr("Executor");
}

QModelIndex OverviewModel::index(int row, int column, const QModelIndex& parent) const {
  if (!hasIndex(row, column, parent)) return {};
  if (!parent.isValid()) return createIndex(row, column, kTopLevel);
  return createIndex(row, column, static_cast<quintptr>(parent.row()) + 1);
}

QModelIndex OverviewModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == kTopLevel) return {};
  return createIndex(static_cast<int>(child.internalId() - 1), 0, kTopLevel);
}

int OverviewModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return SectionCount;
  if (parent.internalId() != kTopLevel || parent.column() != 0) return 0;
  return static_cast<int>(rows_[static_cast<size_t>(parent.row())].size());
}

int OverviewModel::columnCount(const QModelIndex&) const {
  return ColumnCount;
}

QVariant OverviewModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid()) return {};
  if (index.internalId() == kTopLevel) {
    if (role == Qt::DisplayRole && index.column() == LabelColumn)
      return sectionTitle(static_cast<Section>(index.row()));
    return {};
  }
  const auto section = static_cast<Section>(index.internalId() - 1);
  const Row& r = rows_[static_cast<size_t>(section)][static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return index.column() == LabelColumn ? r.label : r.value;
    case Qt::ToolTipRole:
      return r.label + QStringLiteral(": ") + r.value;
    case ReasonKindRole:
      return section == Pending ? r.key : QVariant();
    case JobIdRole:
      return section == Idle ? r.key : QVariant();
    default:
      return {};
  }
}

QVariant OverviewModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == LabelColumn ? tr("What") : tr("Now");
}

}  // namespace tessera::widgets
