#include "service/backend.h"

#include <filesystem>
#include <future>
#include <iterator>
#include <map>
#include <unordered_set>

#include "core/engine_text.h"
#include "core/strings.h"
#include "report/report_compute.h"
#include "report/report_time.h"
#include "scheduler/command_yaml.h"
#include "service/live_world.h"
#include "service/reservation_views.h"
#include "service/scope_metrics.h"
#include "service/simulated_world.h"
#include "service/snapshot_view.h"
#include "sim/metrics.h"
#include "sim/simulator.h"
#include "topology/mig_layout.h"

namespace tessera {

const char* backendModeName(BackendMode m) {
  return m == BackendMode::Live ? "live" : "simulated-live";
}

const char* errorKindName(ErrorKind k) {
  switch (k) {
    case ErrorKind::InvalidArgument:
      return "invalid argument";
    case ErrorKind::NotFound:
      return "not found";
    case ErrorKind::FailedPrecondition:
      return "failed precondition";
    case ErrorKind::Unavailable:
      return "unavailable";
    case ErrorKind::DeadlineExceeded:
      return "deadline exceeded";
    case ErrorKind::Internal:
      return "internal";
    case ErrorKind::PermissionDenied:
      return "permission denied";
    case ErrorKind::Unauthenticated:
      return "unauthenticated";
    case ErrorKind::ResourceExhausted:
      return "resource exhausted";
  }
  return "?";
}

namespace {

using Clock = std::chrono::steady_clock;

ApiError unavailable(const Error& e) {
  return {ErrorKind::Unavailable,
          "the database refused the write, nothing was applied: " + e.str()};
}

// The API status of an engine refusal: the engine said what the refusal is about.
ErrorKind classify(const Error& e) {
  switch (e.refusal) {
    case Refusal::NotFound:
      return ErrorKind::NotFound;
    case Refusal::WrongState:
      return ErrorKind::FailedPrecondition;
    case Refusal::BadArgument:
      break;
  }
  return ErrorKind::InvalidArgument;
}

ApiError refusal(const Error& e) {
  return {classify(e), e.str(), e.text.empty() ? Text{} : e.sentence()};
}

// NOT_FOUND for a job id neither the engine nor the database knows.
ApiError noSuchJob(JobId id) {
  return refusal(Error::notFound(phrase(text::kNoJob, id)));
}

}  // namespace

struct Backend::Batch {
  bool tick = false;
  std::vector<JobId> dirty;
  bool setupChanged = false;
  std::vector<std::pair<std::string, double>> samples;
  Seconds sampleTime = 0;
  bool compactMetrics = false;
};

struct Backend::Item {
  Deadline deadline;
  std::function<void(Backend&, Batch&)> apply;
  std::function<void(const std::optional<Error>&)> finish;  // after the commit
  std::function<void()> expire;                             // deadline passed before apply
};

namespace {

// A work item whose result is replied after the batch's commit (or replaced by an
// "unavailable" error when that commit fails).
template <typename T, typename Item, typename Work>
std::unique_ptr<Item> makeItem(Deadline d, Reply<T> reply, Work work) {
  auto item = std::make_unique<Item>();
  auto result = std::make_shared<std::optional<std::variant<T, ApiError>>>();
  item->deadline = d;
  item->apply = [result, work = std::move(work)](auto& backend, auto& batch) mutable {
    *result = work(backend, batch);
  };
  item->finish = [result, reply](const std::optional<Error>& commitError) {
    if (commitError)
      reply(unavailable(*commitError));
    else
      reply(std::move(**result));
  };
  item->expire = [reply] {
    reply(ApiError{ErrorKind::DeadlineExceeded,
                   "the deadline passed while the request waited; nothing was applied"});
  };
  return item;
}

}  // namespace

struct Backend::HealthBoard {
  std::mutex mutex;
  BackendHealth now;
  uint64_t nextId = 0;
  std::map<uint64_t, std::function<void(const BackendHealth&)>> watchers;
};

namespace {

std::unique_ptr<World> worldOf(const BackendConfig& c) {
  if (c.mode == BackendMode::Live)
    return std::make_unique<LiveWorld>(c.executor ? c.executor() : nullptr);
  return std::make_unique<SimulatedWorld>(SimulatedWorldConfig{
      c.speed, c.arrivalsPerHour, c.gpuFaultsPerDay, c.gpuFaultRepair, c.seed});
}

}  // namespace

Backend::Backend(BackendConfig config)
    : config_(std::move(config)),
      health_(std::make_shared<HealthBoard>()),
      world_(worldOf(config_)) {}

Backend::~Backend() {
  stop();
}

Expected<std::unique_ptr<Backend>> Backend::open(BackendConfig config) {
  std::unique_ptr<Backend> b(new Backend(std::move(config)));
  TESSERA_CHECK(b->restoreOrCreate());
  // The first cycle waits one interval, so the first requests after a restart are not queued
  // behind it.
  b->nextTick_ =
      Clock::now() + std::chrono::microseconds(static_cast<int64_t>(b->config_.cycleSeconds * 1e6));
  b->thread_ = std::thread([raw = b.get()] { raw->engineLoop(); });
  return b;
}

Status Backend::restoreOrCreate() {
  const auto started = Clock::now();
  TESSERA_TRY(db, Database::open(config_.database));
  db_ = std::make_unique<Database>(std::move(db));
  state_ = std::make_unique<StateStore>(*db_);
  eventStore_ = std::make_unique<EventStore>(*db_);
  metricStore_ = std::make_unique<MetricStore>(*db_, config_.retention);
  usageStore_ = std::make_unique<UsageStore>(*db_);
  usage_ = UsageRecorder(usageTelemetry());
  TESSERA_TRY(has, state_->hasState());
  if (has) {
    TESSERA_TRY(mode, state_->meta("mode"));
    if (mode && *mode != backendModeName(config_.mode))
      return Error{"the database " + config_.database + " was written in " + *mode +
                       " mode; start tesserad in that mode or with a new database",
                   {}};
    static const GpuCatalog builtin = GpuCatalog::builtin();
    TESSERA_TRY(loaded, state_->load(config_.catalog ? *config_.catalog : builtin));
    engine_.emplace(std::move(loaded.engine));
    extras_ = std::move(loaded.extras);
    restoredJobs_ = loaded.activeJobs;
    // A state that breaks the engine's invariants is refused rather than served from.
    if (const auto broken = engine_->invariantViolations(); !broken.empty())
      return Error{"the stored state of " + config_.database +
                       " breaks the engine's invariants: " + broken.front(),
                   {}};
  } else {
    if (!config_.cluster) return Error{"a new database needs a cluster spec", {}};
    Workload tenants = config_.tenants;
    tenants.jobs.clear();
    TESSERA_TRY(engine, Engine::create(config_.cluster, tenants, config_.policy));
    engine_.emplace(std::move(engine));
    if (config_.clock)
      TESSERA_CHECK(engine_->advanceTo(config_.clock()));
    else if (config_.mode == BackendMode::Live)
      TESSERA_CHECK(engine_->advanceTo(world_->now(engine_->now())));
    const Status created = db_->transaction([&](Database&) -> Status {
      TESSERA_CHECK(state_->putMeta("mode", backendModeName(config_.mode)));
      TESSERA_CHECK(state_->saveSetup(*engine_));
      return state_->saveGlobal(*engine_, extras_);
    });
    if (!created) return created;
  }
  classes_ = engine_->priorityClasses();
  TESSERA_TRY(openRuns, usageStore_->openRuns());
  usage_.resume(*engine_, std::move(openRuns));
  TESSERA_TRY(last, eventStore_->lastSeq());
  storeSeq_ = last;
  eventCursor_ = engine_->events().size();
  world_->startClock(engine_->now());
  lastCompact_ = engine_->now();
  TESSERA_CHECK(world_->restore(*engine_, extras_));
  // What the world made up while restoring (a live database's instance name) is stored before
  // anything is carried out under it.
  const auto metaBefore = extras_.meta;
  world_->save(*engine_, extras_);
  if (extras_.meta != metaBefore)
    TESSERA_CHECK(
        db_->transaction([&](Database&) { return state_->saveGlobal(*engine_, extras_); }));
  TESSERA_TRY(readDb, Database::open(config_.database));
  readDb_ = std::make_unique<Database>(std::move(readDb));
  readEvents_ = std::make_unique<EventStore>(*readDb_);
  if (!hub_)
    hub_ = std::make_unique<EventHub>(
        config_.eventMemory, storeSeq_,
        [this](uint64_t after, size_t limit) { return readEvents_->after(after, limit); });
  restoreSeconds_ = std::chrono::duration<double>(Clock::now() - started).count();
  committedNow_ = engine_->now();
  return okStatus();
}

void Backend::stop() {
  stopReports();
  {
    std::lock_guard lock(queueMutex_);
    if (stopping_ && !thread_.joinable()) return;
    stopping_ = true;
  }
  queueCv_.notify_all();
  if (thread_.joinable()) thread_.join();
  if (hub_) hub_->stop();
}

void Backend::post(std::unique_ptr<Item> item) {
  {
    std::lock_guard lock(queueMutex_);
    if (!stopping_) {
      queue_.push_back(std::move(item));
      item = nullptr;
    }
  }
  if (item) {
    item->finish(Error{"the backend is shutting down", {}});
    return;
  }
  queueCv_.notify_one();
}

Seconds Backend::clockNow() const {
  if (config_.clock) return std::max(engine_->now(), config_.clock());
  return world_->now(engine_->now());
}

void Backend::engineLoop() {
  while (true) {
    std::vector<std::unique_ptr<Item>> items;
    bool tick = false;
    {
      std::unique_lock lock(queueMutex_);
      queueCv_.wait_until(lock, nextTick_, [&] { return stopping_ || !queue_.empty(); });
      while (!queue_.empty() && items.size() < config_.maxBatch) {
        items.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      tick = config_.runCycles && !stopping_ && Clock::now() >= nextTick_;
      if (stopping_ && items.empty()) break;
    }
    runBatch(items, tick);
    if (tick)
      nextTick_ = Clock::now() +
                  std::chrono::microseconds(static_cast<int64_t>(config_.cycleSeconds * 1e6));
  }
}

void Backend::runBatch(std::vector<std::unique_ptr<Item>>& items, bool tick) {
  if (broken_) {
    for (auto& item : items) item->finish(*broken_);
    return;
  }
  if (const Seconds now = clockNow(); now > engine_->now()) (void)engine_->advanceTo(now);
  Batch batch;
  std::vector<bool> applied(items.size(), false);
  const auto now = Clock::now();
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i]->deadline && *items[i]->deadline < now) continue;
    items[i]->apply(*this, batch);
    applied[i] = true;
  }
  // The requests are committed and answered before the cycle runs: a cycle over a long queue
  // can take a second, and no reply should wait for it (one more fsync per cycle is the price).
  const Status committed = commit(batch);
  for (size_t i = 0; i < items.size(); ++i) {
    if (!applied[i])
      items[i]->expire();
    else
      items[i]->finish(committed ? std::nullopt : std::optional<Error>(committed.error()));
  }
  if (!committed) {
    rollbackToStore(committed.error());
    return;
  }
  // Only what is durable is carried out: a crash before the next commit loses nothing the
  // cluster was told (the executor finds its own work again by tag).
  world_->afterDecisions(*engine_);
  if (!tick) return;
  Batch cycle;
  cycle.tick = true;
  tickWork(cycle);
  if (const Status st = commit(cycle); !st) return rollbackToStore(st.error());
  world_->afterDecisions(*engine_);
}

Status Backend::commit(Batch& batch) {
  const auto& all = engine_->events();
  std::vector<Event> fresh(all.begin() + static_cast<std::ptrdiff_t>(eventCursor_), all.end());
  uint64_t seq = storeSeq_;
  for (Event& e : fresh) {
    e.seq = ++seq;
    if (e.job != kNoJob) batch.dirty.push_back(e.job);
  }
  std::sort(batch.dirty.begin(), batch.dirty.end());
  batch.dirty.erase(std::unique(batch.dirty.begin(), batch.dirty.end()), batch.dirty.end());
  usage_.follow(*engine_);
  const std::vector<UsageRecord> usageRows = usage_.changed();
  // A batch of reads changed nothing worth an fsync (the clock alone is recomputed on restart).
  if (fresh.empty() && batch.dirty.empty() && !batch.setupChanged && batch.samples.empty() &&
      !batch.compactMetrics && !batch.tick && usageRows.empty())
    return okStatus();
  const Status st = db_->transaction([&](Database&) -> Status {
    TESSERA_CHECK(eventStore_->appendInTransaction(fresh));
    TESSERA_CHECK(state_->saveJobs(*engine_, batch.dirty, extras_.actualRuntime));
    if (batch.setupChanged) TESSERA_CHECK(state_->saveSetup(*engine_));
    world_->save(*engine_, extras_);
    TESSERA_CHECK(state_->saveGlobal(*engine_, extras_));
    TESSERA_CHECK(usageStore_->saveInTransaction(usageRows));
    if (!batch.samples.empty())
      TESSERA_CHECK(metricStore_->recordInTransaction(batch.sampleTime, batch.samples));
    if (batch.compactMetrics) TESSERA_CHECK(metricStore_->compactInTransaction(engine_->now()));
    return okStatus();
  });
  if (!st) return st;
  committedNow_ = engine_->now();
  storeSeq_ = seq;
  eventCursor_ = all.size();
  usage_.markSaved();
  // Finished jobs leave the in-memory table of simulated ends.
  for (JobId id : batch.dirty)
    if (const JobRecord* r = engine_->job(id); r && !r->active()) extras_.actualRuntime.erase(id);
  hub_->publish(fresh);
  return okStatus();
}

void Backend::rollbackToStore(const Error& why) {
  // Memory must not run ahead of the database: rebuild from what is stored. When even that
  // fails, the engine holds changes that were reported as not applied; a later commit must not
  // store them, so the backend refuses all further work until it is restarted.
  static const GpuCatalog builtin = GpuCatalog::builtin();
  const auto cannotReload = [&why](const std::string& what, const Error& e) {
    return Error{"a write failed (" + why.str() + ") and " + what + " could not be reloaded (" +
                     e.str() + "); restart tesserad",
                 {}};
  };
  auto loaded = state_->load(config_.catalog ? *config_.catalog : builtin);
  if (!loaded) return stopServing(cannotReload("the state", loaded.error()));
  engine_.emplace(std::move(loaded->engine));
  extras_ = std::move(loaded->extras);
  eventCursor_ = engine_->events().size();
  auto openRuns = usageStore_->openRuns();
  if (!openRuns) return stopServing(cannotReload("the usage ledger", openRuns.error()));
  usage_.resume(*engine_, std::move(*openRuns));
  if (auto restored = world_->restore(*engine_, extras_); !restored)
    stopServing(cannotReload("the world's state", restored.error()));
}

void Backend::stopServing(Error why) {
  broken_ = why;
  std::lock_guard lock(health_->mutex);
  health_->now = BackendHealth{false, why.str()};
  // Under the lock, so that once a watch is cancelled no call of it is still running.
  for (const auto& [id, f] : health_->watchers) f(health_->now);
}

BackendHealth Backend::health() const {
  std::lock_guard lock(health_->mutex);
  return health_->now;
}

ClusterSession::CancelWatch Backend::watchHealth(std::function<void(const BackendHealth&)> f) {
  std::lock_guard lock(health_->mutex);
  const uint64_t id = health_->nextId++;
  health_->watchers.emplace(id, std::move(f));
  return [board = health_, id] {
    std::lock_guard guard(board->mutex);
    board->watchers.erase(id);
  };
}

CycleStats Backend::tickWork(Batch& batch) {
  world_->beforeCycle(*engine_, extras_);
  const CycleStats stats = engine_->runCycle();
  world_->afterCycle(*engine_);
  if (lastSample_ < 0 || engine_->now() - lastSample_ >= config_.sampleEvery) sampleMetrics(batch);
  if (engine_->now() - lastCompact_ >= 3600) {
    batch.compactMetrics = true;
    lastCompact_ = engine_->now();
  }
  if (config_.onCycle)
    config_.onCycle(CycleReport{*engine_, stats, world_->modelledTelemetry(),
                                sample_ ? &*sample_ : nullptr, world_->executor()});
  return stats;
}

void Backend::cycleNow(Reply<CycleStats> reply) {
  post(makeItem<CycleStats, Item>(
      std::nullopt, std::move(reply),
      [](Backend& b, Batch& batch) -> std::variant<CycleStats, ApiError> {
        batch.tick = true;
        return b.tickWork(batch);
      }));
}

UsageRecorder::TelemetryOf Backend::usageTelemetry() const {
  // Live mode records what node agents pushed (PushTelemetry); a run on GPUs without fresh
  // readings is recorded unmeasured, and reports say what share of the hours was measured.
  return [this](const JobRecord& r, Seconds t) { return world_->jobTelemetry(r, t); };
}

void Backend::sampleMetrics(Batch& batch) {
  const std::vector<const JobRecord*> pending = engine_->pending(), running = engine_->running();
  const auto* modelled = world_->modelledTelemetry();
  std::vector<GpuTelemetry> telemetry = modelled ? *modelled : std::vector<GpuTelemetry>{};
  telemetry.resize(engine_->cluster().gpus().size());
  MetricsRecorder recorder;
  recorder.sample(*engine_, telemetry, pending, running);
  sample_ = recorder.samples().back();
  const MetricSample& s = *sample_;
  batch.sampleTime = engine_->now();
  auto& out = batch.samples;
  out = {{"gpus_capacity", s.capacity},
         {"gpus_allocated", s.allocated},
         {"jobs_pending", s.pending},
         {"jobs_running", s.running},
         {"fragmentation_fgd_gpus", s.fgdFragmentation},
         {"fragmentation_mig", s.migFragmentation},
         {"cycle_ms", engine_->stats().lastCycleMs}};
  for (size_t c = 0; c < kStrandCauses; ++c)
    out.emplace_back(strandedSeriesName(static_cast<StrandCause>(c)), s.stranded[c]);
  usage_.sample(*engine_);
  const bool simulated = modelled != nullptr;
  if (simulated) {
    out.emplace_back("gpus_busy", s.busy);
    out.emplace_back("gpus_sm_active", s.effective);
    out.emplace_back("gpus_tensor_active", s.tensor);
  }
  const auto use = engine_->teamUse();
  const auto& teams = engine_->quotas().teams();
  for (size_t t = 0; t < teams.size() && t < use.size(); ++t)
    if (auto name = labelledSeries("team_gpus", "team", teams[t].name))
      out.emplace_back(std::move(*name), use[t].gpus);
  sampleScopes(out, simulated);
  lastSample_ = engine_->now();
}

void Backend::sampleScopes(std::vector<std::pair<std::string, double>>& out, bool simulated) const {
  // The same per-job readings lastTelemetry_ summed per GPU this tick: the model is
  // deterministic in (job, minute), so the scopes add up to the cluster's lines.
  JobTelemetryOf telemetryOf;
  if (simulated)
    telemetryOf = [this](const JobRecord& r) { return world_->jobTelemetry(r, engine_->now()); };
  auto scoped = scopeSamples(*engine_, scopeUsage(*engine_, telemetryOf), simulated);
  out.insert(out.end(), std::make_move_iterator(scoped.begin()),
             std::make_move_iterator(scoped.end()));
}

// --- requests

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

JobInfo Backend::infoOf(const JobRecord& r) const {
  const Cluster& c = engine_->cluster();
  JobInfo info;
  info.row.job = r.job;
  info.row.state = r.state;
  info.row.startTime = r.startTime;
  info.row.endTime = r.active() ? 0 : r.endTime;
  info.row.preemptions = r.preemptions;
  info.row.gpuHoursLost = r.gpuHoursLost;
  info.row.reason = r.reason;
  if (auto it = extras_.actualRuntime.find(r.job.id); it != extras_.actualRuntime.end())
    info.row.actualRuntime = it->second;
  info.priority = r.job.priority;
  info.queuePosition = engine_->queuePosition(r);
  if (r.state == JobState::Pending) info.eta = r.eta;
  info.blockedBy = r.blockedBy;
  info.external = world_->externalJob(r.job.id);
  if (r.state == JobState::Running && r.placement)
    for (const auto& t : r.placement->tasks) {
      PlacedTask p;
      p.node = c.node(t.node).name;
      for (GpuId g : t.gpus) p.gpus.push_back(c.gpu(g).index);
      p.migStart = t.migStart;
      info.placement.push_back(std::move(p));
    }
  return info;
}

void Backend::job(JobId id, Reply<JobInfo> reply) {
  post(makeItem<JobInfo, Item>(std::nullopt, std::move(reply),
                               [id](Backend& b, Batch&) -> std::variant<JobInfo, ApiError> {
                                 if (const JobRecord* r = b.engine_->job(id)) return b.infoOf(*r);
                                 auto row = b.state_->job(id);
                                 if (!row) return ApiError{ErrorKind::Internal, row.error().str()};
                                 if (!*row) return noSuchJob(id);
                                 JobInfo info;
                                 info.row = std::move(**row);
                                 return info;
                               }));
}

void Backend::jobs(JobFilter filter, Reply<JobPage> reply) {
  post(makeItem<JobPage, Item>(std::nullopt, std::move(reply),
                               [filter](Backend& b, Batch&) -> std::variant<JobPage, ApiError> {
                                 auto rows = b.state_->list(filter);
                                 if (!rows)
                                   return ApiError{ErrorKind::Internal, rows.error().str()};
                                 JobPage page;
                                 for (JobRow& row : *rows) {
                                   const JobRecord* r = b.engine_->job(row.job.id);
                                   if (r && r->active()) {
                                     page.jobs.push_back(b.infoOf(*r));
                                   } else {
                                     JobInfo info;
                                     info.row = std::move(row);
                                     page.jobs.push_back(std::move(info));
                                   }
                                 }
                                 if (rows->size() == filter.limit && !page.jobs.empty())
                                   page.nextAfter = page.jobs.back().row.job.id;
                                 return page;
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
        return std::move(*result);
      }));
}

void Backend::explainJob(JobId id, Reply<Explanation> reply) {
  post(makeItem<Explanation, Item>(std::nullopt, std::move(reply),
                                   [id](Backend& b, Batch&) -> std::variant<Explanation, ApiError> {
                                     if (b.engine_->job(id)) {
                                       auto x = explain(*b.engine_, id);
                                       if (!x) return refusal(x.error());
                                       return std::move(*x);
                                     }
                                     // Finished before the last restart: its record and its history
                                     // from the event log.
                                     auto row = b.state_->job(id);
                                     if (!row)
                                       return ApiError{ErrorKind::Internal, row.error().str()};
                                     if (!*row) return noSuchJob(id);
                                     Explanation x;
                                     x.job = id;
                                     x.state = (*row)->state;
                                     x.dominantReason = (*row)->reason;
                                     auto events = b.eventStore_->forJob(id, 1000);
                                     if (!events)
                                       return ApiError{ErrorKind::Internal, events.error().str()};
                                     for (const Event& ev : *events)
                                       x.history.push_back(historyLine(ev));
                                     return x;
                                   }));
}

void Backend::snapshot(Reply<ClusterSnapshot> reply) {
  post(makeItem<ClusterSnapshot, Item>(
      std::nullopt, std::move(reply),
      [](Backend& b, Batch&) -> std::variant<ClusterSnapshot, ApiError> {
        return snapshotOf(*b.engine_, *b.world_, b.storeSeq_);
      }));
}

void Backend::metrics(MetricQuery query, Reply<MetricAnswer> reply) {
  post(makeItem<MetricAnswer, Item>(
      std::nullopt, std::move(reply),
      [query](Backend& b, Batch&) -> std::variant<MetricAnswer, ApiError> {
        MetricAnswer a;
        if (query.series.empty()) {
          auto names = b.metricStore_->seriesNames();
          if (!names) return ApiError{ErrorKind::Internal, names.error().str()};
          a.names = std::move(*names);
          return a;
        }
        const int64_t to = query.to > 0 ? query.to : b.engine_->now() + 1;
        if (to <= query.from) return ApiError{ErrorKind::InvalidArgument, "to: must be after from"};
        auto series =
            b.metricStore_->query(query.series, query.from, to, query.resolution, query.maxPoints);
        if (!series) return ApiError{ErrorKind::InvalidArgument, series.error().str()};
        a.series = std::move(*series);
        return a;
      }));
}

void Backend::pushTelemetry(DcgmScrape scrape, std::string node, Reply<TelemetryPush> reply) {
  post(makeItem<TelemetryPush, Item>(
      std::nullopt, std::move(reply),
      [scrape = std::move(scrape), node = std::move(node)](
          Backend& b, Batch&) -> std::variant<TelemetryPush, ApiError> {
        auto taken = b.world_->pushTelemetry(*b.engine_, scrape, node);
        if (!taken)
          return ApiError{taken.error().refusal == Refusal::WrongState
                              ? ErrorKind::FailedPrecondition
                              : ErrorKind::InvalidArgument,
                          taken.error().str()};
        return std::move(*taken);
      }));
}

void Backend::backup(std::string path, Reply<uint64_t> reply) {
  post(makeItem<uint64_t, Item>(
      std::nullopt, std::move(reply),
      [path](Backend& b, Batch&) -> std::variant<uint64_t, ApiError> {
        std::error_code ec;
        if (path.empty()) return ApiError{ErrorKind::InvalidArgument, "path: empty"};
        if (std::filesystem::exists(path, ec))
          return ApiError{ErrorKind::FailedPrecondition, "path: " + path + " already exists"};
        if (auto st = b.db_->backupTo(path); !st)
          return ApiError{ErrorKind::FailedPrecondition, st.error().str()};
        return static_cast<uint64_t>(std::filesystem::file_size(path, ec));
      }));
}

// --- reports

namespace {

ApiError badReport(const std::string& field, const std::string& message) {
  return {ErrorKind::InvalidArgument, field + ": " + message};
}

// What can be checked without the database: the request's own fields.
std::optional<ApiError> checkReportFields(const ReportRequest& r) {
  if (auto st = checkTimeZone(r.timeZone); !st) return badReport("time_zone", st.error().message);
  if (!(r.idleThreshold >= 0 && r.idleThreshold <= 1))
    return badReport("idle_threshold", "must be between 0 and 1");
  if (r.idleMinDuration < 0) return badReport("idle_min_seconds", "must not be negative");
  if (r.from && r.to && *r.from >= *r.to)
    return badReport("to", "must be after from (" + std::to_string(*r.from) + " .. " +
                               std::to_string(*r.to) + ")");
  return std::nullopt;
}

// What needs the database's setup: the teams it knows and the range its data covers.
std::optional<ApiError> checkReportAgainst(const ReportSetup& setup, const ReportRequest& r) {
  for (const std::string& team : r.teams) {
    const auto& teams = setup.teams;
    if (std::any_of(teams.begin(), teams.end(), [&](const Team& t) { return t.name == team; }))
      continue;
    std::vector<std::string> known;
    for (const Team& t : teams) known.push_back(t.name);
    return badReport("teams", "unknown team '" + team + "' (known: " + join(known, ", ") + ")");
  }
  const Seconds from = r.from.value_or(setup.first), to = r.to.value_or(setup.last);
  if (from >= to)
    return badReport(r.from ? "from" : "to",
                     "the range is empty or inverted: from " +
                         formatReportTime(from, setup.wallClock, r.timeZone) + " is not before " +
                         formatReportTime(to, setup.wallClock, r.timeZone) +
                         (r.from && r.to ? "" : " (the database's data ends there)"));
  return std::nullopt;
}

}  // namespace

void Backend::report(ReportRequest request, Reply<Report> reply) {
  report(std::move(request), ReportLimits{}, std::move(reply));
}

void Backend::report(ReportRequest request, ReportLimits limits, Reply<Report> reply) {
  if (auto bad = checkReportFields(request)) {
    reply(std::move(*bad));
    return;
  }
  std::unique_lock lock(reportMutex_);
  // Join the workers that finished, so a long-running backend does not collect dead threads.
  for (auto it = reports_.begin(); it != reports_.end();) {
    if (!it->done) {
      ++it;
      continue;
    }
    it->thread.join();
    it = reports_.erase(it);
  }
  std::optional<ApiError> refused;
  if (reportsStopping_)
    refused = ApiError{ErrorKind::Unavailable, "the backend is shutting down"};
  else if (reports_.size() >= kMaxReports)
    refused = ApiError{ErrorKind::ResourceExhausted,
                       "at most " + std::to_string(kMaxReports) +
                           " reports are computed at a time; try again when one finished"};
  if (refused) {
    lock.unlock();
    reply(std::move(*refused));
    return;
  }
  ReportWorker& worker = reports_.emplace_back();
  try {
    worker.thread = std::thread(
        [this, &worker, request = std::move(request), limits = std::move(limits), reply] {
          runReport(request, limits, reply);
          worker.done = true;
        });
  } catch (const std::system_error& e) {
    reports_.pop_back();
    lock.unlock();
    reply(ApiError{ErrorKind::ResourceExhausted,
                   std::string("cannot start a thread for the report: ") + e.what()});
  }
}

void Backend::runReport(const ReportRequest& request, const ReportLimits& limits,
                        const Reply<Report>& reply) const {
  // Its own read-only connection: the engine's connection belongs to the engine thread.
  auto source = openReportDatabase(config_.database, config_.catalog);
  if (!source) {
    reply(ApiError{ErrorKind::Unavailable,
                   "the database cannot be read for a report: " + source.error().str()});
    return;
  }
  if (auto bad = checkReportAgainst((*source)->setup(), request)) {
    reply(std::move(*bad));
    return;
  }
  std::optional<ApiError> stoppedBy;
  const auto progress = [&](double) {
    if (reportsStopping_)
      stoppedBy = ApiError{ErrorKind::Unavailable, "the backend is shutting down"};
    else if (limits.deadline && Clock::now() > *limits.deadline)
      stoppedBy =
          ApiError{ErrorKind::DeadlineExceeded, "the report was not finished before the deadline"};
    else if (limits.cancelled && limits.cancelled())
      stoppedBy = ApiError{ErrorKind::Unavailable, "the call was cancelled"};
    return !stoppedBy;
  };
  auto computed = computeReport(**source, request, progress);
  if (computed) {
    reply(std::move(*computed));
    return;
  }
  if (stoppedBy) {
    reply(std::move(*stoppedBy));
    return;
  }
  // The request was checked above; what is left is a price missing from the table (the
  // caller's to fix) or a read that failed midway.
  const Error& e = computed.error();
  const bool prices =
      request.prices && !e.where.file.empty() && e.where.file == request.prices->file;
  reply(ApiError{prices ? ErrorKind::InvalidArgument : ErrorKind::Internal, e.str()});
}

void Backend::stopReports() {
  std::list<ReportWorker> running;
  {
    std::lock_guard lock(reportMutex_);
    reportsStopping_ = true;
    running.splice(running.end(), reports_);
  }
  // Workers see reportsStopping_ at their next progress call and reply "shutting down".
  for (ReportWorker& w : running)
    if (w.thread.joinable()) w.thread.join();
}

ClusterSession::CancelWatch Backend::watchChanges(std::function<void()> onChange) {
  EventHub* hub = hub_.get();
  const uint64_t id = hub->subscribe(std::move(onChange));
  return [hub, id] { hub->unsubscribe(id); };
}

void Backend::setSpeed(double speed) {
  auto item = std::make_unique<Item>();
  item->apply = [speed](Backend& b, Batch&) {
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
