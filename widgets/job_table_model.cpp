// JobTableModel and JobFilterProxy: the queue tables of the console (see job_table_model.h).
#include "job_table_model.h"

#include <QMimeData>

#include <algorithm>
#include <limits>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "engine_text.h"

namespace tessera::widgets {

namespace {

// Sort values of cells without a value (no queue position, no ETA): after every real one.
constexpr int kNoPosition = std::numeric_limits<int>::max();
constexpr qint64 kNoTime = std::numeric_limits<qint64>::max();
constexpr qint64 kNoClusterJob = std::numeric_limits<qint64>::max();  // sorts last

QString qs(const std::string& s) {
  return QString::fromStdString(s);
}

JobId idOf(const JobInfo& j) {
  return j.row.job.id;
}

bool waitsInQueue(JobState s) {
  return s == JobState::Pending;
}

// The engine's word for the state, translated like its sentences.
QString stateText(JobState s) {
  return displayText(jobStateText(s));
}

QString workloadText(WorkloadClass c) {
  switch (c) {
    case WorkloadClass::Training:
      return JobTableModel::tr("training");
    case WorkloadClass::Inference:
      return JobTableModel::tr("inference");
    case WorkloadClass::Interactive:
      return JobTableModel::tr("interactive");
    case WorkloadClass::Batch:
      return JobTableModel::tr("batch");
  }
  return {};
}

// "0-3,6": GPU indexes with runs collapsed, as operators write them in pins and reports.
QString gpuList(std::vector<int> gpus) {
  std::sort(gpus.begin(), gpus.end());
  QStringList parts;
  for (size_t i = 0; i < gpus.size();) {
    size_t j = i;
    while (j + 1 < gpus.size() && gpus[j + 1] == gpus[j] + 1) ++j;
    parts << (j == i ? QString::number(gpus[i])
                     : QStringLiteral("%1-%2").arg(gpus[i]).arg(gpus[j]));
    i = j + 1;
  }
  return parts.join(QLatin1Char(','));
}

// Longest increasing subsequence of `v` (distinct values): which positions keep their place
// when rows are reordered, so that only the others need a move.
std::vector<bool> longestIncreasing(const std::vector<int>& v) {
  std::vector<int> tails;  // index into v of the smallest tail of each length
  std::vector<int> prev(v.size(), -1);
  for (size_t i = 0; i < v.size(); ++i) {
    auto it = std::lower_bound(tails.begin(), tails.end(), v[i], [&v](int t, int value) {
      return v[static_cast<size_t>(t)] < value;
    });
    if (it != tails.begin()) prev[i] = *(it - 1);
    if (it == tails.end())
      tails.push_back(static_cast<int>(i));
    else
      *it = static_cast<int>(i);
  }
  std::vector<bool> keep(v.size(), false);
  for (int i = tails.empty() ? -1 : tails.back(); i >= 0; i = prev[static_cast<size_t>(i)])
    keep[static_cast<size_t>(i)] = true;
  return keep;
}

// Only the first of repeated ids counts: the in-place update matches rows by id.
void dropDuplicateIds(std::vector<JobInfo>& jobs) {
  std::unordered_set<JobId> seen;
  std::erase_if(jobs, [&seen](const JobInfo& j) { return !seen.insert(idOf(j)).second; });
}

}  // namespace

// ---- JobTableModel: texts -----------------------------------------------------------------

JobTableModel::JobTableModel(QObject* parent) : QAbstractTableModel(parent) {}

QString JobTableModel::durationText(Seconds s) {
  s = std::max<Seconds>(s, 0);
  if (s < 60) return tr("%1s").arg(s);
  if (s < 3600) return tr("%1m").arg(s / 60);
  if (s < 86400) return tr("%1h %2m").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
  return tr("%1d %2h").arg(s / 86400).arg((s % 86400) / 3600);
}

QString JobTableModel::requestText(const Job& job) {
  const GpuRequest& r = job.perTask;
  QString one;
  switch (r.kind) {
    case GpuRequest::Kind::None:
      return tr("no GPU");
    case GpuRequest::Kind::Whole:
      one = tr("%1 GPU").arg(r.gpus);
      break;
    case GpuRequest::Kind::Mig:
      one = qs(r.migProfile);
      break;
    case GpuRequest::Kind::Fraction:
      // Thousandths of a GPU in the shortest decimal form: 250 -> "0.25".
      one = tr("%1 GPU").arg(QString::number(r.milli / 1000.0, 'g', 4));
      break;
    case GpuRequest::Kind::Mps:
      one = tr("MPS %1%").arg(r.mpsThreads);
      break;
  }
  return job.tasks > 1 ? tr("%1x %2").arg(job.tasks).arg(one) : one;
}

QString JobTableModel::placementText(const JobInfo& info) {
  QStringList tasks;
  for (const PlacedTask& t : info.placement) {
    QString s = qs(t.node) + QLatin1Char('/') + gpuList(t.gpus);
    if (t.migStart >= 0)
      s += QStringLiteral(" [%1@%2]").arg(qs(info.row.job.perTask.migProfile)).arg(t.migStart);
    tasks << s;
  }
  return tasks.join(QStringLiteral(", "));
}

Seconds JobTableModel::waitOf(const JobInfo& info) const {
  const JobRow& r = info.row;
  Seconds until = now_;  // pending, admitted: still waiting
  switch (r.state) {
    case JobState::Pending:
    case JobState::Admitted:
      break;
    case JobState::Running:
      until = r.startTime;
      break;
    default:
      // Finished: the wait before its last run, or until it was cancelled without one.
      if (r.startTime > 0)
        until = r.startTime;
      else if (r.endTime > 0)
        until = r.endTime;
      break;
  }
  return std::max<Seconds>(until - r.job.submitTime, 0);
}

QString JobTableModel::reasonText(const JobInfo& info) const {
  QString text = info.row.state == JobState::Running && !info.placement.empty()
                     ? placementText(info)
                     : displayText(info.row.reason);
  // What the cluster does when it is not what Tessera decided: it is the operator's next lead.
  if (slurmDisagrees(info)) {
    const QString slurm = tr("Slurm %1").arg(slurmStateText(*info.external));
    text = text.isEmpty() ? slurm : text + QStringLiteral(" \u00b7 ") + slurm;
  }
  return text;
}

// Tessera holds its pending jobs in Slurm (JobHeld*) and releases them when it places them, so
// these pairs are Slurm agreeing; anything else (a placement Slurm has not started, a job Slurm
// refused or ended by itself) is worth the operator's eye.
bool JobTableModel::slurmDisagrees(const JobInfo& info) {
  if (!info.external) return false;
  const std::string& state = info.external->state;
  const bool slurmRunning = state == "RUNNING" || state == "CONFIGURING" || state == "COMPLETING";
  switch (info.row.state) {
    case JobState::Pending:
      return state != "PENDING" || info.external->reason.rfind("JobHeld", 0) != 0;
    case JobState::Running:
      return !slurmRunning;
    default:
      return slurmRunning || state == "PENDING";
  }
}

// "4711 PENDING: Resources": the Slurm job beside Tessera's state, with Slurm's own reason when
// it gives one (it may disagree with Tessera's, e.g. a pin Slurm refused).
QString JobTableModel::externalText(const JobInfo& info) {
  if (!info.external) return {};
  return qs(info.external->id) + QLatin1Char(' ') + slurmStateText(*info.external);
}

// "PENDING: Resources", or "RUNNING" when Slurm gives no reason ("None").
QString JobTableModel::slurmStateText(const ExternalJob& x) {
  QString text = qs(x.state);
  if (!x.reason.empty() && x.reason != "None") text += QStringLiteral(": ") + qs(x.reason);
  return text;
}

JobTableModel::Cells JobTableModel::cellsOf(const JobInfo& info) const {
  const Job& job = info.row.job;
  Cells c;
  auto set = [&c](Column col, QString text, QVariant sort) {
    c.text[col] = std::move(text);
    c.sort[col] = std::move(sort);
  };
  set(Id, QString::number(job.id), QVariant::fromValue<qulonglong>(job.id));
  set(Name, qs(job.name), qs(job.name));
  set(Team, qs(job.team), qs(job.team));
  set(PriorityClass, qs(job.priorityClass), info.priority);
  set(Workload, workloadText(job.workloadClass), static_cast<int>(job.workloadClass));
  set(Gang, QString::number(job.tasks), job.tasks);
  set(Request, requestText(job), job.gpuDemand());
  set(State, stateText(info.row.state), static_cast<int>(info.row.state));
  const Seconds wait = waitOf(info);
  set(Wait, durationText(wait), QVariant::fromValue<qint64>(wait));
  const bool queued = info.queuePosition > 0;
  set(QueuePosition, queued ? QString::number(info.queuePosition) : QString(),
      queued ? info.queuePosition : kNoPosition);
  if (info.eta) {
    const QString eta =
        *info.eta <= now_ ? tr("now") : tr("in %1").arg(durationText(*info.eta - now_));
    set(Eta, eta, QVariant::fromValue<qint64>(*info.eta));
  } else {
    set(Eta, QString(), QVariant::fromValue<qint64>(kNoTime));
  }
  const QString reason = reasonText(info);
  set(Reason, reason, reason);
  const QString external = externalText(info);
  // By Slurm's job id; jobs without one last.
  set(ClusterJob, external,
      QVariant::fromValue<qint64>(info.external ? qs(info.external->id).toLongLong()
                                                : kNoClusterJob));
  // The column is often too narrow for a whole reason: the tooltip has it, and the plugin.
  c.tip = reason;
  if (!info.blockedBy.empty())
    c.tip += QLatin1Char('\n') + tr("Blocked by: %1").arg(qs(info.blockedBy));
  return c;
}

// ---- JobTableModel: in-place update -------------------------------------------------------

void JobTableModel::setJobs(std::vector<JobInfo> jobs, Seconds now) {
  now_ = now;
  dropDuplicateIds(jobs);
  removeGone(jobs);
  placeInOrder(jobs);
  updateCells();
}

void JobTableModel::removeGone(const std::vector<JobInfo>& jobs) {
  std::unordered_set<JobId> keep;
  for (const JobInfo& j : jobs) keep.insert(idOf(j));
  // Bottom up, one signal per run of gone rows, so the row numbers above stay valid.
  int last = static_cast<int>(rows_.size()) - 1;
  while (last >= 0) {
    if (keep.count(idOf(rows_[static_cast<size_t>(last)].info))) {
      --last;
      continue;
    }
    int first = last;
    while (first > 0 && !keep.count(idOf(rows_[static_cast<size_t>(first - 1)].info))) --first;
    beginRemoveRows({}, first, last);
    rows_.erase(rows_.begin() + first, rows_.begin() + last + 1);
    endRemoveRows();
    last = first - 1;
  }
}

int JobTableModel::findFrom(JobId id, int from) const {
  for (int r = std::max(from, 0); r < static_cast<int>(rows_.size()); ++r)
    if (idOf(rows_[static_cast<size_t>(r)].info) == id) return r;
  return -1;
}

// Brings the remaining rows into the order of `jobs` with as few row moves as possible (the
// rows on a longest increasing run stay), then inserts the new jobs where they belong. A view
// keeps its selection through moves; a refresh where nothing moved emits no move at all.
void JobTableModel::placeInOrder(std::vector<JobInfo>& jobs) {
  std::unordered_map<JobId, int> target;  // existing job -> its rank among the existing ones
  {
    std::unordered_set<JobId> existing;
    for (const Row& r : rows_) existing.insert(idOf(r.info));
    std::vector<JobId> order;
    for (const JobInfo& j : jobs) {
      if (!existing.count(idOf(j))) continue;
      target.emplace(idOf(j), static_cast<int>(order.size()));
      order.push_back(idOf(j));
    }
    std::vector<int> ranks;
    for (const Row& r : rows_) ranks.push_back(target.at(idOf(r.info)));
    const std::vector<bool> keep = longestIncreasing(ranks);
    std::vector<bool> stable(order.size(), false);
    for (size_t i = 0; i < ranks.size(); ++i) stable[static_cast<size_t>(ranks[i])] = keep[i];
    // Each moved row goes just after its predecessor in the new order, which is already in
    // place (stable, or moved before it).
    for (size_t t = 0; t < order.size(); ++t) {
      if (stable[t]) continue;
      const int from = findFrom(order[t], 0);
      const int to = t == 0 ? 0 : findFrom(order[t - 1], 0) + 1;
      if (from == to || from + 1 == to) continue;
      beginMoveRows({}, from, from, {}, to);
      Row moved = std::move(rows_[static_cast<size_t>(from)]);
      rows_.erase(rows_.begin() + from);
      rows_.insert(rows_.begin() + (from < to ? to - 1 : to), std::move(moved));
      endMoveRows();
    }
  }
  // Existing rows are in order now; the new jobs fill the gaps, one insert per run.
  for (size_t i = 0; i < jobs.size();) {
    if (i < rows_.size() && idOf(rows_[i].info) == idOf(jobs[i])) {
      rows_[i].info = std::move(jobs[i]);
      ++i;
      continue;
    }
    size_t end = i;
    while (end < jobs.size() && !target.count(idOf(jobs[end]))) ++end;
    const int first = static_cast<int>(i);
    beginInsertRows({}, first, static_cast<int>(end) - 1);
    std::vector<Row> added;
    for (size_t k = i; k < end; ++k) {
      Cells cells = cellsOf(jobs[k]);
      added.push_back({std::move(jobs[k]), std::move(cells)});
    }
    rows_.insert(rows_.begin() + first, std::make_move_iterator(added.begin()),
                 std::make_move_iterator(added.end()));
    endInsertRows();
    i = end;
  }
}

// Recomputes every row's cells and signals the changed ones, merging neighbouring rows into
// one dataChanged: a refresh changes the wait time of every pending job, and one signal per
// row would make a sorting proxy re-sort thousands of times a second.
void JobTableModel::updateCells() {
  int runFirst = -1, runLast = -1, colFirst = ColumnCount, colLast = -1;
  auto flush = [&] {
    if (runFirst >= 0) emit dataChanged(index(runFirst, colFirst), index(runLast, colLast));
    runFirst = -1;
    colFirst = ColumnCount;
    colLast = -1;
  };
  for (int r = 0; r < static_cast<int>(rows_.size()); ++r) {
    Row& row = rows_[static_cast<size_t>(r)];
    Cells cells = cellsOf(row.info);
    if (cells == row.cells) {
      flush();
      continue;
    }
    for (int c = 0; c < ColumnCount; ++c) {
      const auto col = static_cast<size_t>(c);
      const bool tipChanged = c == Reason && cells.tip != row.cells.tip;
      if (tipChanged || cells.text[col] != row.cells.text[col] ||
          cells.sort[col] != row.cells.sort[col]) {
        colFirst = std::min(colFirst, c);
        colLast = std::max(colLast, c);
      }
    }
    row.cells = std::move(cells);
    if (runFirst < 0) runFirst = r;
    runLast = r;
  }
  flush();
}

// ---- JobTableModel: reading ---------------------------------------------------------------

const JobInfo& JobTableModel::jobAt(int row) const {
  return rows_.at(static_cast<size_t>(row)).info;
}

int JobTableModel::rowOf(JobId id) const {
  return findFrom(id, 0);
}

bool JobTableModel::isPending(int row) const {
  return row >= 0 && row < rowCount() && waitsInQueue(jobAt(row).row.state);
}

int JobTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int JobTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant JobTableModel::data(const QModelIndex& index, int role) const {
  // Quietly empty for indexes of no row: views ask while rows go away.
  if (!index.isValid() || index.model() != this || index.row() >= rowCount() ||
      index.column() >= ColumnCount)
    return {};
  const Row& row = rows_[static_cast<size_t>(index.row())];
  const auto col = static_cast<size_t>(index.column());
  switch (role) {
    case Qt::DisplayRole:
      return row.cells.text[col];
    case SortRole:
      return row.cells.sort[col];
    case JobIdRole:
      return QVariant::fromValue<qulonglong>(idOf(row.info));
    case StateRole:
      return static_cast<int>(row.info.row.state);
    case TeamRole:
      return qs(row.info.row.job.team);
    case Qt::ToolTipRole:
      return index.column() == Reason && !row.cells.tip.isEmpty() ? QVariant(row.cells.tip)
                                                                  : QVariant();
    case Qt::TextAlignmentRole: {
      const bool numeric = index.column() == Id || index.column() == Gang ||
                           index.column() == Wait || index.column() == QueuePosition;
      return numeric ? QVariant(static_cast<int>(Qt::AlignRight | Qt::AlignVCenter)) : QVariant();
    }
    default:
      return {};
  }
}

QVariant JobTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Id:
      return tr("Job");
    case Name:
      return tr("Name");
    case Team:
      return tr("Team");
    case PriorityClass:
      return tr("Priority");
    case Workload:
      return tr("Workload");
    case Gang:
      return tr("Tasks");
    case Request:
      return tr("Request");
    case State:
      return tr("State");
    case Wait:
      return tr("Wait");
    case QueuePosition:
      return tr("Queue");
    case Eta:
      return tr("ETA");
    case Reason:
      return tr("Reason / placement");
    case ClusterJob:
      return tr("Slurm job");
    default:
      return {};
  }
}

// ---- JobTableModel: drag and drop ---------------------------------------------------------

Qt::ItemFlags JobTableModel::flags(const QModelIndex& index) const {
  // Below the last row: a drop there moves the job to the bottom of the queue.
  if (!index.isValid()) return Qt::ItemIsDropEnabled;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
  // Only the queue can be reordered: running and finished jobs neither move nor take drops.
  if (isPending(index.row())) f |= Qt::ItemIsDragEnabled | Qt::ItemIsDropEnabled;
  return f;
}

QStringList JobTableModel::mimeTypes() const {
  return {mimeType()};
}

QMimeData* JobTableModel::mimeData(const QModelIndexList& indexes) const {
  // One job moves at a time (cmd::Move takes one): the first pending row of the selection.
  for (const QModelIndex& i : indexes) {
    if (!i.isValid() || i.model() != this || !isPending(i.row())) continue;
    auto* data = new QMimeData;
    data->setData(mimeType(), QByteArray::number(idOf(jobAt(i.row()))));
    return data;
  }
  return nullptr;
}

std::optional<JobId> JobTableModel::droppedJob(const QMimeData* data) const {
  if (!data || !data->hasFormat(mimeType())) return std::nullopt;
  bool ok = false;
  const JobId id = data->data(mimeType()).trimmed().toULongLong(&ok);
  if (!ok || id == kNoJob || !isPending(rowOf(id))) return std::nullopt;
  return id;
}

std::optional<JobId> JobTableModel::dropTarget(int row, const QModelIndex& parent) const {
  // Dropped onto a row (parent = that row), between rows (row = the one below), or past the end.
  const int below = parent.isValid() ? parent.row() : row;
  if (below < 0 || below >= rowCount()) return kNoJob;
  if (!isPending(below)) return std::nullopt;
  return idOf(jobAt(below));
}

bool JobTableModel::canDropMimeData(const QMimeData* data, Qt::DropAction action, int row, int,
                                    const QModelIndex& parent) const {
  if (action != Qt::MoveAction) return false;
  const auto job = droppedJob(data);
  const auto before = dropTarget(row, parent);
  return job && before && *job != *before;
}

bool JobTableModel::dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                                 const QModelIndex& parent) {
  if (!canDropMimeData(data, action, row, column, parent)) return false;
  emit moveRequested(*droppedJob(data), *dropTarget(row, parent));
  return true;
}

Qt::DropActions JobTableModel::supportedDragActions() const {
  return Qt::MoveAction;
}

Qt::DropActions JobTableModel::supportedDropActions() const {
  return Qt::MoveAction;
}

// ---- JobFilterProxy -----------------------------------------------------------------------

JobFilterProxy::JobFilterProxy(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(JobTableModel::SortRole);
  // Rows change state every refresh (pending -> running): re-filter and re-sort as they do.
  setDynamicSortFilter(true);
}

bool JobFilterProxy::stateMatches(StateFilter f, JobState s) {
  switch (f) {
    case StateFilter::All:
      return true;
    case StateFilter::Pending:
      return s == JobState::Pending;
    case StateFilter::Running:
      return s == JobState::Admitted || s == JobState::Running;
    case StateFilter::Active:
      return s == JobState::Pending || s == JobState::Admitted || s == JobState::Running;
    case StateFilter::Finished:
      return s == JobState::Completed || s == JobState::Failed || s == JobState::Cancelled ||
             s == JobState::Preempted;
  }
  return true;
}

void JobFilterProxy::setStateFilter(StateFilter f) {
  if (f == state_) return;
  state_ = f;
  invalidateRowsFilter();
}

void JobFilterProxy::setTeamFilter(const QString& team) {
  if (team == team_) return;
  team_ = team;
  invalidateRowsFilter();
}

void JobFilterProxy::setSearchText(const QString& text) {
  const QString t = text.trimmed();
  if (t == search_) return;
  search_ = t;
  invalidateRowsFilter();
}

bool JobFilterProxy::filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const {
  const QAbstractItemModel* m = sourceModel();
  const QModelIndex i = m->index(sourceRow, JobTableModel::Id, sourceParent);
  if (!stateMatches(state_, static_cast<JobState>(i.data(JobTableModel::StateRole).toInt())))
    return false;
  const QString team = i.data(JobTableModel::TeamRole).toString();
  if (!team_.isEmpty() && team != team_) return false;
  if (search_.isEmpty()) return true;
  const QString name = m->index(sourceRow, JobTableModel::Name, sourceParent).data().toString();
  const QString id = i.data().toString();
  return name.contains(search_, Qt::CaseInsensitive) || id.contains(search_, Qt::CaseInsensitive) ||
         team.contains(search_, Qt::CaseInsensitive);
}

}  // namespace tessera::widgets
