// JobGroupProxy: the queue tables grouped by team (see job_group_proxy.h).
#include "job_group_proxy.h"

#include <QFont>
#include <QMimeData>

#include <algorithm>
#include <cmath>
#include <map>

#include "job_table_model.h"

namespace tessera::widgets {

namespace {

// "24", "8.25": GPU counts are whole except for fractional requests.
QString gpuText(double gpus) {
  return QString::number(std::round(gpus * 100) / 100, 'g', 8);
}

}  // namespace

JobGroupProxy::JobGroupProxy(QObject* parent) : QAbstractProxyModel(parent) {}

JobGroupProxy::~JobGroupProxy() = default;

// ---- source and mode ----------------------------------------------------------------------

void JobGroupProxy::setSourceModel(QAbstractItemModel* source) {
  beginResetModel();
  for (const auto& c : connections_) disconnect(c);
  connections_.clear();
  QAbstractProxyModel::setSourceModel(source);
  if (source) connectSource(source);
  rebuild();
  endResetModel();
}

void JobGroupProxy::connectSource(QAbstractItemModel* source) {
  auto resync = [this] { sync(); };
  auto reset = [this] {
    beginResetModel();
    rebuild();
    endResetModel();
  };
  using M = QAbstractItemModel;
  connections_ = {
      connect(source, &M::rowsInserted, this, resync),
      connect(source, &M::rowsRemoved, this, resync),
      connect(source, &M::rowsMoved, this, resync),
      connect(source, &M::layoutChanged, this, resync),
      connect(source, &M::dataChanged, this, &JobGroupProxy::onDataChanged),
      connect(source, &M::modelAboutToBeReset, this, [this] { beginResetModel(); }),
      connect(source, &M::modelReset, this,
              [this] {
                rebuild();
                endResetModel();
              }),
      // Columns are fixed in the job models; should they change, start over.
      connect(source, &M::columnsInserted, this, reset),
      connect(source, &M::columnsRemoved, this, reset),
      connect(source, &M::columnsMoved, this, reset),
      connect(source, &M::headerDataChanged, this, &JobGroupProxy::headerDataChanged),
      connect(source, &QObject::destroyed, this,
              [this] {
                beginResetModel();
                groups_.clear();
                flat_.jobs.clear();
                sourceRows_.clear();
                slots_.clear();
                endResetModel();
              }),
  };
}

void JobGroupProxy::setGroupByTeam(bool on) {
  if (on == grouped_) return;
  beginResetModel();
  grouped_ = on;
  rebuild();
  endResetModel();
}

void JobGroupProxy::setSummaryColumn(int column) {
  if (column == summaryColumn_) return;
  summaryColumn_ = column;
  if (grouped_ && !groups_.empty())
    emit dataChanged(index(0, 0), index(static_cast<int>(groups_.size()) - 1, columnCount() - 1));
}

void JobGroupProxy::setTeamGpusHeld(QHash<QString, double> held) {
  if (held == held_) return;
  held_ = std::move(held);
  if (grouped_ && !groups_.empty())
    emit dataChanged(index(0, summaryColumn_),
                     index(static_cast<int>(groups_.size()) - 1, summaryColumn_));
}

// ---- following the source -----------------------------------------------------------------

// The source's jobs now, by team (one unnamed team when flat), each in the source's order; and
// where each job is in the source.
JobGroupProxy::Desired JobGroupProxy::readSource() {
  sourceRows_.clear();
  std::map<QString, std::vector<JobId>> byTeam;
  const QAbstractItemModel* m = sourceModel();
  const int rows = m ? m->rowCount() : 0;
  for (int r = 0; r < rows; ++r) {
    const QModelIndex i = m->index(r, 0);
    const JobId job = i.data(JobTableModel::JobIdRole).toULongLong();
    sourceRows_[job] = r;
    byTeam[grouped_ ? i.data(JobTableModel::TeamRole).toString() : QString()].push_back(job);
  }
  return {std::make_move_iterator(byTeam.begin()), std::make_move_iterator(byTeam.end())};
}

void JobGroupProxy::rebuild() {
  Desired desired = readSource();
  groups_.clear();
  flat_.jobs.clear();
  for (auto& [team, jobs] : desired) {
    if (!grouped_) {
      flat_.jobs = std::move(jobs);
      continue;
    }
    auto g = std::make_unique<Group>();
    g->team = team;
    g->jobs = std::move(jobs);
    groups_.push_back(std::move(g));
  }
  renumberGroups();
  indexSlots();
}

// Brings the groups in line with the source after any change of its rows: drop jobs that left
// (or changed team), drop teams left empty, add new teams, restore the source's order inside
// each group, then add the new jobs. Each step emits its own signals, so a view only redraws
// what changed.
void JobGroupProxy::sync() {
  if (!sourceModel()) return;
  const Desired desired = readSource();
  removeStale();
  if (grouped_) {
    removeGroups(desired);
    insertGroups(desired);
  }
  reorder();
  for (size_t i = 0; i < desired.size(); ++i)
    insertJobs(grouped_ ? *groups_[i] : flat_, desired[i].second);
  indexSlots();
  emitGroupsChanged();
}

std::vector<JobGroupProxy::Group*> JobGroupProxy::targets() {
  if (!grouped_) return {&flat_};
  std::vector<Group*> all;
  for (auto& g : groups_) all.push_back(g.get());
  return all;
}

void JobGroupProxy::removeStale() {
  for (Group* g : targets()) {
    auto stale = [this, g](int row) {
      const int src = sourceRow(g->jobs[static_cast<size_t>(row)]);
      return src < 0 || (grouped_ && sourceTeam(src) != g->team);
    };
    // Bottom up, one signal per run, so the rows above keep their numbers.
    for (int last = static_cast<int>(g->jobs.size()) - 1; last >= 0;) {
      if (!stale(last)) {
        --last;
        continue;
      }
      int first = last;
      while (first > 0 && stale(first - 1)) --first;
      beginRemoveRows(parentIndex(*g), first, last);
      g->jobs.erase(g->jobs.begin() + first, g->jobs.begin() + last + 1);
      endRemoveRows();
      last = first - 1;
    }
  }
}

void JobGroupProxy::removeGroups(const Desired& desired) {
  auto gone = [&desired, this](int row) {
    const Group& g = *groups_[static_cast<size_t>(row)];
    if (!g.jobs.empty()) return false;
    return std::none_of(desired.begin(), desired.end(),
                        [&g](const auto& d) { return d.first == g.team; });
  };
  for (int last = static_cast<int>(groups_.size()) - 1; last >= 0;) {
    if (!gone(last)) {
      --last;
      continue;
    }
    int first = last;
    while (first > 0 && gone(first - 1)) --first;
    beginRemoveRows({}, first, last);
    groups_.erase(groups_.begin() + first, groups_.begin() + last + 1);
    renumberGroups();
    endRemoveRows();
    last = first - 1;
  }
}

// After removeGroups every group's team is wanted, so a merge of the two sorted lists finds
// the teams to add; afterwards groups_[i] is desired[i].
void JobGroupProxy::insertGroups(const Desired& desired) {
  size_t i = 0;
  for (const auto& [team, jobs] : desired) {
    if (i < groups_.size() && groups_[i]->team == team) {
      ++i;
      continue;
    }
    const int at = static_cast<int>(i);
    beginInsertRows({}, at, at);
    auto g = std::make_unique<Group>();
    g->team = team;
    groups_.insert(groups_.begin() + at, std::move(g));
    renumberGroups();
    endInsertRows();
    ++i;
  }
}

// The source re-sorted (or moved rows): put each group's remaining jobs back in the source's
// order in one layout change, carrying the views' persistent indexes along.
void JobGroupProxy::reorder() {
  auto inOrder = [this](const Group* g) {
    return std::is_sorted(g->jobs.begin(), g->jobs.end(),
                          [this](JobId a, JobId b) { return sourceRow(a) < sourceRow(b); });
  };
  const std::vector<Group*> all = targets();
  if (std::all_of(all.begin(), all.end(), inOrder)) return;
  emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
  const QModelIndexList before = persistentIndexList();
  std::vector<JobId> jobs;  // the job behind each persistent job row
  for (const QModelIndex& p : before) {
    const Group* g = groupAt(p);
    jobs.push_back(g ? g->jobs[static_cast<size_t>(p.row())] : kNoJob);
  }
  for (Group* g : all)
    std::sort(g->jobs.begin(), g->jobs.end(),
              [this](JobId a, JobId b) { return sourceRow(a) < sourceRow(b); });
  indexSlots();
  QModelIndexList after;
  for (qsizetype k = 0; k < before.size(); ++k) {
    const QModelIndex& p = before[k];
    const JobId job = jobs[static_cast<size_t>(k)];
    if (job == kNoJob) {
      after << p;  // a team row: teams do not move
      continue;
    }
    const Slot& s = slots_[static_cast<size_t>(sourceRow(job))];
    after << createIndex(s.row, p.column(), s.group);
  }
  changePersistentIndexList(before, after);
  emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

// `g` holds a subsequence of `desired` in the same order: insert the missing runs.
void JobGroupProxy::insertJobs(Group& g, const std::vector<JobId>& desired) {
  size_t i = 0;
  size_t j = 0;
  while (j < desired.size()) {
    if (i < g.jobs.size() && g.jobs[i] == desired[j]) {
      ++i, ++j;
      continue;
    }
    size_t end = j;
    while (end < desired.size() && (i >= g.jobs.size() || desired[end] != g.jobs[i])) ++end;
    const int first = static_cast<int>(i);
    beginInsertRows(parentIndex(g), first, first + static_cast<int>(end - j) - 1);
    g.jobs.insert(g.jobs.begin() + first, desired.begin() + static_cast<std::ptrdiff_t>(j),
                  desired.begin() + static_cast<std::ptrdiff_t>(end));
    endInsertRows();
    i += end - j;
    j = end;
  }
}

void JobGroupProxy::renumberGroups() {
  for (size_t i = 0; i < groups_.size(); ++i) groups_[i]->row = static_cast<int>(i);
}

void JobGroupProxy::indexSlots() {
  slots_.assign(sourceModel() ? static_cast<size_t>(sourceModel()->rowCount()) : 0, Slot{});
  for (Group* g : targets()) {
    g->requested.reset();
    for (size_t k = 0; k < g->jobs.size(); ++k) {
      const int src = sourceRow(g->jobs[k]);
      if (src >= 0 && static_cast<size_t>(src) < slots_.size())
        slots_[static_cast<size_t>(src)] = {g, static_cast<int>(k)};
    }
  }
}

void JobGroupProxy::emitGroupsChanged() {
  if (grouped_ && !groups_.empty())
    emit dataChanged(index(0, 0), index(static_cast<int>(groups_.size()) - 1, columnCount() - 1));
}

// Cells changed: forward them per group. A job whose team changed moves to its new group
// first (a sorting source may already have said so with a layout change).
void JobGroupProxy::onDataChanged(const QModelIndex& topLeft, const QModelIndex& bottomRight,
                                  const QList<int>& roles) {
  if (!topLeft.isValid() || topLeft.parent().isValid()) return;
  auto lastRow = [this, &bottomRight] {
    return std::min(bottomRight.row(), static_cast<int>(slots_.size()) - 1);
  };
  bool regroup = false;
  for (int r = topLeft.row(); r <= lastRow() && !regroup; ++r) {
    const Slot& s = slots_[static_cast<size_t>(r)];
    regroup = !s.group || (grouped_ && s.group->team != sourceTeam(r));
  }
  if (regroup) sync();
  std::map<Group*, std::pair<int, int>> spans;  // rows touched per group
  const int last = lastRow();                   // sync may have re-indexed the rows
  for (int r = topLeft.row(); r <= last; ++r) {
    const Slot& s = slots_[static_cast<size_t>(r)];
    if (!s.group) continue;
    auto [it, fresh] = spans.try_emplace(s.group, s.row, s.row);
    if (!fresh)
      it->second = {std::min(it->second.first, s.row), std::max(it->second.second, s.row)};
  }
  for (const auto& [g, span] : spans) {
    const QModelIndex parent = parentIndex(*g);
    emit dataChanged(index(span.first, topLeft.column(), parent),
                     index(span.second, bottomRight.column(), parent), roles);
    g->requested.reset();
    if (grouped_) emit dataChanged(index(g->row, 0), index(g->row, columnCount() - 1));
  }
}

// ---- structure ----------------------------------------------------------------------------

JobGroupProxy::Group* JobGroupProxy::groupAt(const QModelIndex& index) const {
  return index.isValid() ? static_cast<Group*>(index.internalPointer()) : nullptr;
}

const JobGroupProxy::Group* JobGroupProxy::childGroup(const QModelIndex& parent) const {
  if (!parent.isValid()) return grouped_ ? nullptr : &flat_;
  if (!isGroup(parent) || parent.column() != 0 || parent.row() >= static_cast<int>(groups_.size()))
    return nullptr;
  return groups_[static_cast<size_t>(parent.row())].get();
}

QModelIndex JobGroupProxy::parentIndex(const Group& g) const {
  return &g == &flat_ ? QModelIndex() : createIndex(g.row, 0, nullptr);
}

bool JobGroupProxy::isGroup(const QModelIndex& index) const {
  return grouped_ && index.isValid() && index.model() == this && !index.internalPointer();
}

int JobGroupProxy::sourceRow(JobId job) const {
  const auto it = sourceRows_.find(job);
  return it == sourceRows_.end() ? -1 : it->second;
}

QString JobGroupProxy::sourceTeam(int sourceRow) const {
  return sourceModel()->index(sourceRow, 0).data(JobTableModel::TeamRole).toString();
}

QModelIndex JobGroupProxy::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column >= columnCount()) return {};
  if (!parent.isValid() && grouped_)
    return row < static_cast<int>(groups_.size()) ? createIndex(row, column, nullptr)
                                                  : QModelIndex();
  const Group* g = childGroup(parent);
  if (!g || row >= static_cast<int>(g->jobs.size())) return {};
  return createIndex(row, column, g);
}

QModelIndex JobGroupProxy::parent(const QModelIndex& child) const {
  const Group* g = groupAt(child);
  if (!g || g == &flat_) return {};
  return createIndex(g->row, 0, nullptr);
}

int JobGroupProxy::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid() && grouped_) return static_cast<int>(groups_.size());
  const Group* g = childGroup(parent);
  return g ? static_cast<int>(g->jobs.size()) : 0;
}

int JobGroupProxy::columnCount(const QModelIndex& parent) const {
  (void)parent;
  return sourceModel() ? sourceModel()->columnCount() : 0;
}

bool JobGroupProxy::hasChildren(const QModelIndex& parent) const {
  return rowCount(parent) > 0;
}

QModelIndex JobGroupProxy::sibling(int row, int column, const QModelIndex& idx) const {
  return index(row, column, parent(idx));
}

QModelIndex JobGroupProxy::mapToSource(const QModelIndex& proxyIndex) const {
  const Group* g = groupAt(proxyIndex);
  if (!g || !sourceModel() || proxyIndex.row() >= static_cast<int>(g->jobs.size())) return {};
  const int src = sourceRow(g->jobs[static_cast<size_t>(proxyIndex.row())]);
  return src < 0 ? QModelIndex() : sourceModel()->index(src, proxyIndex.column());
}

QModelIndex JobGroupProxy::mapFromSource(const QModelIndex& sourceIndex) const {
  if (!sourceIndex.isValid() || sourceIndex.parent().isValid() ||
      sourceIndex.row() >= static_cast<int>(slots_.size()))
    return {};
  const Slot& s = slots_[static_cast<size_t>(sourceIndex.row())];
  return s.group ? createIndex(s.row, sourceIndex.column(), s.group) : QModelIndex();
}

// ---- reading ------------------------------------------------------------------------------

QString JobGroupProxy::teamOf(const QModelIndex& groupIndex) const {
  if (!isGroup(groupIndex) || groupIndex.row() >= static_cast<int>(groups_.size())) return {};
  return groups_[static_cast<size_t>(groupIndex.row())]->team;
}

QModelIndex JobGroupProxy::groupIndex(const QString& team) const {
  for (const auto& g : groups_)
    if (g->team == team) return createIndex(g->row, 0, nullptr);
  return {};
}

QModelIndex JobGroupProxy::indexOfJob(JobId job, int column) const {
  const int src = sourceRow(job);
  if (src < 0 || !sourceModel()) return {};
  return mapFromSource(sourceModel()->index(src, column));
}

double JobGroupProxy::requestedOf(const Group& g) const {
  if (!g.requested) {
    double sum = 0;
    for (JobId job : g.jobs)
      if (const int src = sourceRow(job); src >= 0)
        sum += sourceModel()
                   ->index(src, JobTableModel::Request)
                   .data(JobTableModel::SortRole)
                   .toDouble();
    g.requested = sum;
  }
  return *g.requested;
}

QString JobGroupProxy::groupSummary(int groupRow) const {
  if (groupRow < 0 || groupRow >= static_cast<int>(groups_.size())) return {};
  const Group& g = *groups_[static_cast<size_t>(groupRow)];
  const int n = static_cast<int>(g.jobs.size());
  const QString team = g.team.isEmpty() ? tr("(no team)") : g.team;
  const QString jobs = n == 1 ? tr("1 job") : tr("%1 jobs").arg(n);
  const QString requested = gpuText(requestedOf(g));
  const auto held = held_.constFind(g.team);
  if (held == held_.constEnd()) return tr("%1 — %2 · %3 GPUs requested").arg(team, jobs, requested);
  return tr("%1 — %2 · %3 GPUs requested · %4 held").arg(team, jobs, requested, gpuText(*held));
}

QVariant JobGroupProxy::groupData(const Group& g, int column, int role) const {
  switch (role) {
    case GroupRole:
      return true;
    case JobTableModel::TeamRole:
      return g.team;
    case Qt::DisplayRole:
    case Qt::ToolTipRole:
      if (column == summaryColumn_) return groupSummary(g.row);
      return column == JobTableModel::Team && role == Qt::DisplayRole ? QVariant(g.team)
                                                                      : QVariant();
    case Qt::FontRole: {
      QFont bold;
      bold.setBold(true);
      return bold;
    }
    default:
      return {};
  }
}

QVariant JobGroupProxy::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.model() != this) return {};
  if (isGroup(index)) {
    if (index.row() >= static_cast<int>(groups_.size())) return {};
    return groupData(*groups_[static_cast<size_t>(index.row())], index.column(), role);
  }
  if (role == GroupRole) return false;
  const QModelIndex src = mapToSource(index);
  return src.isValid() ? src.data(role) : QVariant();
}

QMap<int, QVariant> JobGroupProxy::itemData(const QModelIndex& index) const {
  if (isGroup(index)) return QAbstractItemModel::itemData(index);
  return QAbstractProxyModel::itemData(index);
}

QVariant JobGroupProxy::headerData(int section, Qt::Orientation orientation, int role) const {
  // Columns are the source's; the base class would map through row 0, a team row.
  if (orientation == Qt::Horizontal && sourceModel())
    return sourceModel()->headerData(section, orientation, role);
  return QAbstractItemModel::headerData(section, orientation, role);
}

Qt::ItemFlags JobGroupProxy::flags(const QModelIndex& index) const {
  if (!sourceModel()) return Qt::NoItemFlags;
  if (!index.isValid()) return sourceModel()->flags({});
  if (isGroup(index)) return Qt::ItemIsEnabled;  // not selectable, dragged or dropped on
  const QModelIndex src = mapToSource(index);
  return src.isValid() ? sourceModel()->flags(src) : Qt::NoItemFlags;
}

// ---- drag and drop ------------------------------------------------------------------------

QMimeData* JobGroupProxy::mimeData(const QModelIndexList& indexes) const {
  QModelIndexList sources;
  for (const QModelIndex& i : indexes)
    if (const QModelIndex s = mapToSource(i); s.isValid()) sources << s;
  return sources.isEmpty() || !sourceModel() ? nullptr : sourceModel()->mimeData(sources);
}

std::optional<JobGroupProxy::SourceDrop> JobGroupProxy::sourceDrop(
    int row, int column, const QModelIndex& parent) const {
  if (!sourceModel()) return std::nullopt;
  const int col = row >= 0 ? std::max(column, 0) : column;
  auto before = [this, col](JobId job) -> std::optional<SourceDrop> {
    const int src = sourceRow(job);
    if (src < 0) return std::nullopt;
    return SourceDrop{src, col, {}};
  };
  const int sourceRows = sourceModel()->rowCount();
  if (parent.isValid() && !isGroup(parent)) {  // onto a job
    const QModelIndex onto = mapToSource(parent);
    if (!onto.isValid()) return std::nullopt;
    return SourceDrop{-1, -1, onto};
  }
  if (parent.isValid()) {  // between the jobs of a team
    const Group* g = childGroup(parent);
    if (!g || g->jobs.empty() || row < 0) return std::nullopt;  // onto the team row
    if (row < static_cast<int>(g->jobs.size())) return before(g->jobs[static_cast<size_t>(row)]);
    const int afterLast = sourceRow(g->jobs.back());
    if (afterLast < 0) return std::nullopt;
    return SourceDrop{afterLast + 1, col, {}};
  }
  if (row < 0) return SourceDrop{-1, -1, {}};  // the empty area below: the bottom
  const std::vector<JobId>* jobs =
      grouped_ ? (row < static_cast<int>(groups_.size()) ? &groups_[static_cast<size_t>(row)]->jobs
                                                         : nullptr)
               : &flat_.jobs;
  const size_t k = grouped_ ? 0 : static_cast<size_t>(row);
  if (jobs && k < jobs->size()) return before((*jobs)[k]);
  return SourceDrop{sourceRows, col, {}};
}

bool JobGroupProxy::canDropMimeData(const QMimeData* data, Qt::DropAction action, int row,
                                    int column, const QModelIndex& parent) const {
  const auto d = sourceDrop(row, column, parent);
  return d && sourceModel()->canDropMimeData(data, action, d->row, d->column, d->parent);
}

bool JobGroupProxy::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                                 const QModelIndex& parent) {
  const auto d = sourceDrop(row, column, parent);
  return d && sourceModel()->dropMimeData(data, action, d->row, d->column, d->parent);
}

}  // namespace tessera::widgets
