#include "service/backend.h"

#include <filesystem>
#include <future>
#include <iterator>
#include <map>
#include <unordered_set>

#include "core/engine_text.h"
#include "core/strings.h"
#include "service/backend_work.h"
#include "service/snapshot_view.h"

namespace tessera {

using namespace backend_work;

void Backend::submit(std::vector<Job> jobs, const Caller& who, Deadline d,
                     Reply<std::vector<JobId>> reply) {
  post(makeItem<std::vector<JobId>, Item>(
      d, std::move(reply),
      [jobs = std::move(jobs), actor = who.name](
          Backend& b, Batch&) mutable -> std::variant<std::vector<JobId>, ApiError> {
        Engine& e = *b.engine_;
        if (jobs.empty()) return ApiError{ErrorKind::InvalidArgument, "jobs: no job given"};
        for (size_t i = 0; i < jobs.size(); ++i) {
          Job& j = jobs[i];
          j.id = b.extras_.nextJob + i;
          j.submitTime = e.now();
          j.state = JobState::Pending;
          Status st = e.validate(j);
          if (st) st = b.world_->admit(j);
          if (!st) {
            // Whatever the check's class, a batch with a bad job is a bad argument.
            Error err = st.error();
            const std::string field = err.where.field;
            err.where.field =
                "jobs[" + std::to_string(i) + "]" + (field.empty() ? "" : "." + field);
            return ApiError{ErrorKind::InvalidArgument, err.str(),
                            err.text.empty() ? Text{} : err.sentence()};
          }
        }
        std::vector<JobId> ids;
        ids.reserve(jobs.size());
        for (Job& j : jobs) {
          auto id = e.submit(j, actor);
          if (!id) return ApiError{ErrorKind::Internal, id.error().str()};
          ++b.extras_.nextJob;
          b.world_->submitted(j, b.extras_);
          ids.push_back(*id);
        }
        return ids;
      }));
}

JobLive Backend::liveOf(const JobRecord& r) const {
  return tessera::liveOf(*engine_, *world_, r, extras_.actualRuntime);
}

// The view and the read connection show the same commit when no commit began between taking the
// view and the end of the read: a commit moves stateVersion_ before it writes, and a view takes
// the version when it is swapped in, after its commit's write. A read that straddles a commit is
// tried again.
template <typename T, typename Read>
std::optional<std::variant<T, ApiError>> Backend::readPublished(Read read) {
  lastJobsRead_ = Clock::now().time_since_epoch().count();
  for (int attempt = 0; attempt < 3 && health().serving; ++attempt) {
    const PublishedView view = currentView();
    const std::shared_ptr<const JobsView>& jobs = view.jobs;
    const uint64_t version = view.version;
    if (!jobs) break;
    std::lock_guard lock(jobReadMutex_);
    std::variant<T, ApiError> answer = read(*jobs);
    if (stateVersion_.load() == version) return answer;
  }
  viewWanted_ = true;
  return std::nullopt;
}

namespace {

// A job as its stored row shows it (the engine no longer holds it).
std::variant<JobInfo, ApiError> storedJob(const StateStore& store, JobId id) {
  auto row = store.job(id);
  if (!row) return ApiError{ErrorKind::Internal, row.error().str()};
  if (!*row) return noSuchJob(id);
  JobInfo info;
  info.row = std::move(**row);
  return info;
}

// A page of stored rows, the active ones as `live` shows them.
template <typename Live>
std::variant<JobPage, ApiError> jobPage(const StateStore& store, const JobFilter& filter,
                                        Live live) {
  auto rows = store.list(filter);
  if (!rows) return ApiError{ErrorKind::Internal, rows.error().str()};
  JobPage page;
  for (JobRow& row : *rows) {
    if (std::optional<JobInfo> info = live(row.job.id)) {
      page.jobs.push_back(std::move(*info));
    } else {
      JobInfo stored;
      stored.row = std::move(row);
      page.jobs.push_back(std::move(stored));
    }
  }
  if (rows->size() == filter.limit && !page.jobs.empty())
    page.nextAfter = page.jobs.back().row.job.id;
  return page;
}

// Explain of a job only the database holds.
std::variant<Explanation, ApiError> storedExplain(const StateStore& store, const EventStore& events,
                                                  JobId id) {
  auto row = store.job(id);
  if (!row) return ApiError{ErrorKind::Internal, row.error().str()};
  if (!*row) return noSuchJob(id);
  auto history = events.forJob(id, 1000);
  if (!history) return ApiError{ErrorKind::Internal, history.error().str()};
  return storedExplanation(**row, *history);
}

}  // namespace

void Backend::job(JobId id, Reply<JobInfo> reply) {
  auto published =
      readPublished<JobInfo>([&](const JobsView& v) -> std::variant<JobInfo, ApiError> {
        if (const JobLive* j = v.find(id)) return infoOf(*j);
        return storedJob(*jobRead_, id);
      });
  if (published) return reply(std::move(*published));
  post(makeItem<JobInfo, Item>(std::nullopt, std::move(reply),
                               [id](Backend& b, Batch&) -> std::variant<JobInfo, ApiError> {
                                 if (const JobRecord* r = b.engine_->job(id))
                                   return infoOf(b.liveOf(*r));
                                 return storedJob(*b.state_, id);
                               }));
}

void Backend::jobs(JobFilter filter, Reply<JobPage> reply) {
  auto published = readPublished<JobPage>([&](const JobsView& v) {
    return jobPage(*jobRead_, filter, [&v](JobId id) -> std::optional<JobInfo> {
      const JobLive* j = v.find(id);
      return j && j->active() ? std::optional(infoOf(*j)) : std::nullopt;
    });
  });
  if (published) return reply(std::move(*published));
  post(makeItem<JobPage, Item>(
      std::nullopt, std::move(reply),
      [filter](Backend& b, Batch&) -> std::variant<JobPage, ApiError> {
        return jobPage(*b.state_, filter, [&b](JobId id) -> std::optional<JobInfo> {
          const JobRecord* r = b.engine_->job(id);
          return r && r->active() ? std::optional(infoOf(b.liveOf(*r))) : std::nullopt;
        });
      }));
}

void Backend::act(Command command, bool dryRun, const Caller& who, Deadline d,
                  Reply<CommandResult> reply) {
  post(makeItem<CommandResult, Item>(
      d, std::move(reply),
      [command = std::move(command), dryRun, actor = who.name](
          Backend& b, Batch& batch) -> std::variant<CommandResult, ApiError> {
        Engine& e = *b.engine_;
        const auto target = targetJob(command);
        if (target && !e.job(*target)) {
          auto row = b.state_->job(*target);
          if (row && *row)
            return refusal(Error::wrongState(
                phrase(text::kAlreadyEnded, *target, jobStateText((*row)->state))));
          return noSuchJob(*target);
        }
        auto result = execute(e, command, actor, dryRun);
        if (!result) return refusal(result.error());
        if (dryRun)
          e.recordCommand(actor,
                          phrase(text::kAuditDryRun, describeText(command), result->message));
        batch.dirty.insert(batch.dirty.end(), result->touched.jobs.begin(),
                           result->touched.jobs.end());
        batch.setupChanged = batch.setupChanged || result->touched.setup;
        batch.acted = batch.acted || result->applied;
        return std::move(*result);
      }));
}

Expected<std::vector<Text>> Backend::historyOf(const JobRecord& r) const {
  // The database holds the job's whole stored history (the engine forgets old events, and a
  // restarted engine's log begins at the restart); the engine adds what is not stored yet.
  TESSERA_TRY(lines, storedHistory(r.job.id));
  for (uint32_t i : r.eventIndex)
    if (const Event* ev = engine_->eventAt(i); ev && i >= eventCursor_)
      lines.push_back(historyLine(*ev));
  return lines;
}

Expected<std::vector<Text>> Backend::storedHistory(JobId id) const {
  TESSERA_TRY(events, eventStore_->forJob(id, 1000));
  std::vector<Text> lines;
  for (const Event& ev : events) lines.push_back(historyLine(ev));
  return lines;
}

void Backend::explainJob(JobId id, Reply<Explanation> reply) {
  post(makeItem<Explanation, Item>(std::nullopt, std::move(reply),
                                   [id](Backend& b, Batch&) -> std::variant<Explanation, ApiError> {
                                     if (const JobRecord* r = b.engine_->job(id)) {
                                       auto x = explain(*b.engine_, id);
                                       if (!x) return refusal(x.error());
                                       auto h = b.historyOf(*r);
                                       if (!h)
                                         return ApiError{ErrorKind::Internal, h.error().str()};
                                       x->history = std::move(*h);
                                       return std::move(*x);
                                     }
                                     // Finished before the last restart: its record and its history
                                     // from the event log.
                                     return storedExplain(*b.state_, *b.eventStore_, id);
                                   }));
}

void Backend::explainBrief(JobId id, Reply<Explanation> reply) {
  auto published =
      readPublished<Explanation>([&](const JobsView& v) -> std::variant<Explanation, ApiError> {
        const JobLive* j = v.find(id);
        if (!j) return storedExplain(*jobRead_, *jobReadEvents_, id);
        // Everything the view shows is stored: the history is the database's.
        auto history = jobReadEvents_->forJob(id, 1000);
        if (!history) return ApiError{ErrorKind::Internal, history.error().str()};
        return briefExplanation(*j, v.pending, *history);
      });
  if (published) return reply(std::move(*published));
  explainJob(id, std::move(reply));  // the engine thread's answer holds the brief one
}

void Backend::snapshot(Reply<ClusterSnapshot> reply) {
  lastSnapshotRead_ = Clock::now().time_since_epoch().count();
  const PublishedView view = currentView();
  if (view.snapshot && readingsFresh(view) && health().serving) {
    reply(*view.snapshot);
    return;
  }
  viewWanted_ = true;
  post(makeItem<ClusterSnapshot, Item>(
      std::nullopt, std::move(reply),
      [](Backend& b, Batch&) -> std::variant<ClusterSnapshot, ApiError> {
        return snapshotOf(*b.engine_, *b.world_, b.storeSeq_);  // the view follows the commit
      }));
}

void Backend::metrics(MetricQuery query, Reply<MetricAnswer> reply) {
  reply([&]() -> std::variant<MetricAnswer, ApiError> {
    std::lock_guard lock(metricReadMutex_);
    MetricAnswer a;
    if (query.series.empty()) {
      auto names = metricRead_->seriesNames();
      if (!names) return ApiError{ErrorKind::Internal, names.error().str()};
      a.names = std::move(*names);
      return a;
    }
    // Up to the last commit: what the database holds.
    const int64_t to = query.to > 0 ? query.to : committedNow_.load() + 1;
    if (to <= query.from) return ApiError{ErrorKind::InvalidArgument, "to: must be after from"};
    auto series =
        metricRead_->query(query.series, query.from, to, query.resolution, query.maxPoints);
    if (!series) return ApiError{ErrorKind::InvalidArgument, series.error().str()};
    a.series = std::move(*series);
    return a;
  }());
}

void Backend::pushTelemetry(DcgmScrape scrape, std::string node, Reply<TelemetryPush> reply) {
  post(makeItem<TelemetryPush, Item>(
      std::nullopt, std::move(reply),
      [scrape = std::move(scrape), node = std::move(node)](
          Backend& b, Batch& batch) -> std::variant<TelemetryPush, ApiError> {
        auto taken = b.world_->pushTelemetry(*b.engine_, scrape, node);
        // Holds a push puts or lifts are events, which make the views stale by themselves.
        batch.readingsChanged = true;
        if (!taken)
          return ApiError{taken.error().refusal == Refusal::WrongState
                              ? ErrorKind::FailedPrecondition
                              : ErrorKind::InvalidArgument,
                          taken.error().str()};
        return std::move(*taken);
      }));
}

void Backend::reportInventory(InventoryReport report, Reply<InventoryReply> reply) {
  post(makeItem<InventoryReply, Item>(
      std::nullopt, std::move(reply),
      [report = std::move(report)](Backend& b,
                                   Batch& batch) -> std::variant<InventoryReply, ApiError> {
        auto taken = b.world_->reportInventory(*b.engine_, report);
        if (!taken) return refusal(taken.error());
        if (taken->join) batch.joining = std::move(taken->join->cluster);
        // Holds and layouts are the engine's setup; the snapshot shows them.
        batch.setupChanged = batch.setupChanged || !taken->changes.empty();
        batch.worldChanged = true;
        if (b.config_.onWarning) {
          for (const auto& c : taken->changes) b.config_.onWarning(report.node + ": " + c);
          for (const auto& w : taken->warnings) b.config_.onWarning(report.node + ": " + w);
        }
        return std::move(*taken);
      }));
}

void Backend::admitNode(std::string node, std::string actor, Reply<std::string> reply) {
  post(makeItem<std::string, Item>(
      std::nullopt, std::move(reply),
      [node = std::move(node), actor = std::move(actor)](
          Backend& b, Batch& batch) -> std::variant<std::string, ApiError> {
        auto admitted = b.world_->admitNode(*b.engine_, node, actor);
        if (!admitted) return refusal(admitted.error());
        batch.worldChanged = true;
        batch.joining = std::move(admitted->cluster);
        if (b.config_.onWarning) b.config_.onWarning(admitted->message);
        return std::move(admitted->message);
      }));
}

void Backend::nodeInventory(Reply<std::vector<NodeInventoryView>> reply) {
  post(makeItem<std::vector<NodeInventoryView>, Item>(
      std::nullopt, std::move(reply),
      [](Backend& b, Batch&) -> std::variant<std::vector<NodeInventoryView>, ApiError> {
        return b.world_->nodeInventory(*b.engine_);
      }));
}

void Backend::backup(std::string path, Reply<uint64_t> reply) {
  std::error_code ec;
  if (path.empty()) return reply(ApiError{ErrorKind::InvalidArgument, "path: empty"});
  if (std::filesystem::exists(path, ec))
    return reply(ApiError{ErrorKind::FailedPrecondition, "path: " + path + " already exists"});
  if (auto refused = startWorker([this, path, reply] { runBackup(path, reply); }))
    reply(std::move(*refused));
}

void Backend::runBackup(const std::string& path, const Reply<uint64_t>& reply) const {
  // Its own connection: the engine's belongs to the engine thread, and a backup from it would
  // hold the engine thread for the copy's whole duration.
  auto source = Database::openReadOnly(config_.database);
  if (!source)
    return reply(ApiError{ErrorKind::Unavailable,
                          "the database cannot be read for a backup: " + source.error().str()});
  const Status copied = source->backupTo(path, [this] {
    if (config_.onBackupStep) config_.onBackupStep();
    return !reportsStopping_.load();
  });
  if (!copied) {
    std::error_code ec;
    std::filesystem::remove(path, ec);  // no half copy is left to be mistaken for a backup
    return reply(
        ApiError{reportsStopping_ ? ErrorKind::Unavailable : ErrorKind::FailedPrecondition,
                 reportsStopping_ ? "the backend is shutting down" : copied.error().str()});
  }
  std::error_code ec;
  reply(static_cast<uint64_t>(std::filesystem::file_size(path, ec)));
}

ClusterSession::CancelWatch Backend::watchChanges(std::function<void()> onChange) {
  EventHub* hub = hub_.get();
  const uint64_t id = hub->subscribe(std::move(onChange));
  return [hub, id] { hub->unsubscribe(id); };
}

void Backend::setSpeed(double speed) {
  auto item = std::make_unique<Item>();
  item->apply = [speed](Backend& b, Batch& batch) {
    batch.worldChanged = true;
    // Re-based where the engine stands (the batch advanced it just before this item): a pause
    // then freezes the time operators last saw, and time never moves backwards.
    b.world_->setSpeed(b.engine_->now(), speed);
  };
  item->finish = [](const std::optional<Error>&) {};
  item->expire = [] {};
  post(std::move(item));
}

void Backend::inspect(std::function<void(const Engine&)> f) {
  std::promise<void> done;
  auto item = std::make_unique<Item>();
  item->apply = [&f](Backend& b, Batch&) { f(*b.engine_); };
  item->finish = [&done](const std::optional<Error>&) { done.set_value(); };
  item->expire = [&done] { done.set_value(); };
  auto fut = done.get_future();
  post(std::move(item));
  fut.wait();
}

}  // namespace tessera
