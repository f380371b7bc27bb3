// Allocated-but-idle GPUs: per-GPU utilization runs across snapshots and the table over them.
#include "idle_gpu_model.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace tessera::widgets {

// --- IdleRun

void IdleRun::add(Seconds time, double util) {
  if (entries_.empty()) first_ = time;
  // The latest sample is always on the stack (nothing follows it): it learns its successor now.
  if (!entries_.empty() && !entries_.back().next) entries_.back().next = time;
  while (!entries_.empty() && entries_.back().util <= util) entries_.pop_back();
  entries_.push_back({time, util, std::nullopt});
  if (entries_.size() > kMaxEntries) {
    // Forget the oldest peak; the run now starts after it, which only shortens idle periods.
    first_ = entries_.front().next.value_or(time);
    entries_.erase(entries_.begin());
  }
}

std::optional<Seconds> IdleRun::idleSince(double threshold) const {
  if (entries_.empty() || entries_.back().util >= threshold) return std::nullopt;
  // The newest sample at or above the threshold is a suffix maximum, so it is on the stack.
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it)
    if (it->util >= threshold) return it->next;
  return first_;
}

// --- formatting

QString formatEngineTime(Seconds t) {
  const Seconds day = t / 86400;
  const Seconds s = t % 86400;
  const QString hms = QStringLiteral("%1:%2:%3")
                          .arg(s / 3600, 2, 10, QLatin1Char('0'))
                          .arg(s / 60 % 60, 2, 10, QLatin1Char('0'))
                          .arg(s % 60, 2, 10, QLatin1Char('0'));
  if (day == 0) return hms;
  return QCoreApplication::translate("tessera::widgets::IdleGpuModel", "d%1 %2")
      .arg(day + 1)
      .arg(hms);
}

QString formatDurationShort(Seconds d) {
  // A free function has no tr(): translate in the model's context, spelled out for lupdate.
  if (d < 60) return QCoreApplication::translate("tessera::widgets::IdleGpuModel", "%1s").arg(d);
  if (d < 3600)
    return QCoreApplication::translate("tessera::widgets::IdleGpuModel", "%1m").arg(d / 60);
  return QCoreApplication::translate("tessera::widgets::IdleGpuModel", "%1h %2m")
      .arg(d / 3600)
      .arg(d / 60 % 60, 2, 10, QLatin1Char('0'));
}

// --- IdleGpuModel

IdleGpuModel::IdleGpuModel(QObject* parent) : QAbstractTableModel(parent) {}

namespace {

std::vector<JobId> jobsOf(const GpuView& g) {
  std::vector<JobId> jobs;
  for (const auto& o : g.occupants)
    if (o.job != kNoJob) jobs.push_back(o.job);
  std::sort(jobs.begin(), jobs.end());
  jobs.erase(std::unique(jobs.begin(), jobs.end()), jobs.end());
  return jobs;
}

QString teamsOf(const GpuView& g) {
  QStringList teams;
  for (const auto& o : g.occupants) {
    const QString t = QString::fromStdString(o.team);
    if (!t.isEmpty() && !teams.contains(t)) teams << t;
  }
  return teams.join(QStringLiteral(", "));
}

// Each job's share of the GPU (a job may hold several MIG instances of it) and its team.
template <typename Share>
std::vector<Share> sharesOf(const GpuView& g, const std::vector<JobId>& jobs) {
  std::vector<Share> shares;
  for (JobId job : jobs) {
    Share s;
    s.job = job;
    for (const auto& o : g.occupants) {
      if (o.job != job) continue;
      s.share += o.milli / 1000.0;
      s.team = QString::fromStdString(o.team);
    }
    shares.push_back(s);
  }
  return shares;
}

QString percent(double v) {
  return QStringLiteral("%1%").arg(std::lround(v * 100));
}

}  // namespace

void IdleGpuModel::setSnapshot(const ClusterSnapshot& snapshot) {
  snapshot_ = snapshot;
  track(snapshot_);
  applyRows(computeRows());
}

void IdleGpuModel::setThreshold(double util) {
  threshold_ = util;
  applyRows(computeRows());
}

void IdleGpuModel::setMinimumIdle(Seconds duration) {
  minimumIdle_ = duration;
  applyRows(computeRows());
}

// A run lasts while the same jobs hold the GPU and telemetry keeps coming; anything else
// starts over, since an idle period of a job says nothing about the next one.
void IdleGpuModel::track(const ClusterSnapshot& snapshot) {
  std::map<Key, Tracked> next;
  latest_.clear();
  for (const auto& n : snapshot.nodes) {
    for (const auto& g : n.gpus) {
      if (g.allocated <= 0 || !g.util) continue;
      Key key{QString::fromStdString(n.name), g.index};
      auto jobs = jobsOf(g);
      auto old = tracked_.find(key);
      Tracked t;
      if (old != tracked_.end() && old->second.jobs == jobs) t = std::move(old->second);
      t.jobs = std::move(jobs);
      t.run.add(snapshot.now, *g.util);
      latest_[key] = &g;
      next.emplace(std::move(key), std::move(t));
    }
  }
  tracked_ = std::move(next);
}

std::vector<IdleGpuModel::Row> IdleGpuModel::computeRows() const {
  std::vector<Row> rows;
  for (const auto& [key, t] : tracked_) {
    const auto since = t.run.idleSince(threshold_);
    if (!since || snapshot_.now - *since < minimumIdle_) continue;
    const GpuView& g = *latest_.at(key);
    rows.push_back({key, t.jobs, sharesOf<JobShare>(g, t.jobs), teamsOf(g), g.allocated,
                    g.util.value_or(0), g.smActive, *since});
  }
  return rows;  // by key: the map's order
}

// Merges the new rows into the old ones by key, so views keep selection and scroll position.
void IdleGpuModel::applyRows(std::vector<Row> rows) {
  size_t i = 0;
  size_t j = 0;
  while (i < rows_.size() || j < rows.size()) {
    const int at = static_cast<int>(i);
    if (j == rows.size() || (i < rows_.size() && rows_[i].key < rows[j].key)) {
      beginRemoveRows({}, at, at);
      rows_.erase(rows_.begin() + at);
      endRemoveRows();
    } else if (i == rows_.size() || rows[j].key < rows_[i].key) {
      beginInsertRows({}, at, at);
      rows_.insert(rows_.begin() + at, std::move(rows[j]));
      endInsertRows();
      ++i, ++j;
    } else {
      if (!(rows_[i] == rows[j])) {
        rows_[i] = std::move(rows[j]);
        emit dataChanged(index(at, 0), index(at, ColumnCount - 1));
      }
      ++i, ++j;
    }
  }
  // "Idle for" moves with the clock even when nothing else changed.
  if (!rows_.empty())
    emit dataChanged(index(0, IdleForColumn), index(rowCount() - 1, IdleForColumn));
}

QString IdleGpuModel::gpuKey(int row) const {
  if (row < 0 || row >= rowCount()) return {};
  const auto& k = rows_[static_cast<size_t>(row)].key;
  return QStringLiteral("%1/%2").arg(k.node).arg(k.index);
}

int IdleGpuModel::rowOf(const QString& key) const {
  for (int r = 0; r < rowCount(); ++r)
    if (gpuKey(r) == key) return r;
  return -1;
}

std::optional<Seconds> IdleGpuModel::idleSince(int row) const {
  if (row < 0 || row >= rowCount()) return std::nullopt;
  return rows_[static_cast<size_t>(row)].idleSince;
}

std::vector<IdleGpuModel::IdleJob> IdleGpuModel::idleJobs(const QList<int>& rows) const {
  std::vector<IdleJob> jobs;
  for (int row : rows) {
    if (row < 0 || row >= rowCount()) continue;
    for (JobId id : rows_[static_cast<size_t>(row)].jobs)
      if (std::none_of(jobs.begin(), jobs.end(), [id](const IdleJob& j) { return j.job == id; }))
        jobs.push_back({id, {}, 0, 0});
  }
  for (IdleJob& j : jobs)
    for (const Row& r : rows_)
      for (const JobShare& s : r.shares) {
        if (s.job != j.job) continue;
        j.team = s.team;
        ++j.gpus;
        j.idleGpuHours += s.share * static_cast<double>(snapshot_.now - r.idleSince) / 3600.0;
      }
  return jobs;
}

int IdleGpuModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int IdleGpuModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant IdleGpuModel::display(const Row& r, int column) const {
  switch (column) {
    case GpuColumn:
      return QStringLiteral("%1/%2").arg(r.key.node).arg(r.key.index);
    case JobsColumn: {
      QStringList ids;
      for (JobId id : r.jobs) ids << QString::number(id);
      return ids.join(QStringLiteral(", "));
    }
    case TeamColumn:
      return r.team;
    case AllocatedColumn:
      return percent(r.allocated);
    case UtilColumn:
      return percent(r.util);
    case SmActiveColumn:
      return r.smActive ? QVariant(percent(*r.smActive)) : QVariant(tr("n/a"));
    case IdleSinceColumn:
      return formatEngineTime(r.idleSince);
    case IdleForColumn:
      return formatDurationShort(snapshot_.now - r.idleSince);
    default:
      return {};
  }
}

QVariant IdleGpuModel::sortValue(const Row& r, int column) const {
  switch (column) {
    case GpuColumn:
      return QStringLiteral("%1/%2").arg(r.key.node).arg(r.key.index, 4, 10, QLatin1Char('0'));
    case JobsColumn:
      return r.jobs.empty() ? 0ull : static_cast<qulonglong>(r.jobs.front());
    case AllocatedColumn:
      return r.allocated;
    case UtilColumn:
      return r.util;
    case SmActiveColumn:
      return r.smActive.value_or(-1);
    case IdleSinceColumn:
      return static_cast<qlonglong>(r.idleSince);
    case IdleForColumn:
      return static_cast<qlonglong>(snapshot_.now - r.idleSince);
    default:
      return display(r, column);
  }
}

QVariant IdleGpuModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Row& r = rows_[static_cast<size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return display(r, index.column());
    case Qt::TextAlignmentRole:
      if (index.column() >= AllocatedColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      return {};
    case JobIdRole:
      return r.jobs.empty() ? QVariant() : QVariant(static_cast<qulonglong>(r.jobs.front()));
    case JobIdsRole: {
      QVariantList ids;
      for (JobId id : r.jobs) ids << static_cast<qulonglong>(id);
      return ids;
    }
    case SortRole:
      return sortValue(r, index.column());
    case GpuKeyRole:
      return display(r, GpuColumn);
    default:
      return {};
  }
}

QVariant IdleGpuModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case GpuColumn:
      return tr("GPU");
    case JobsColumn:
      return tr("Jobs");
    case TeamColumn:
      return tr("Team");
    case AllocatedColumn:
      return tr("Allocated");
    case UtilColumn:
      return tr("Util");
    case SmActiveColumn:
      return tr("SM active");
    case IdleSinceColumn:
      return tr("Idle since");
    case IdleForColumn:
      return tr("Idle for");
    default:
      return {};
  }
}

}  // namespace tessera::widgets
