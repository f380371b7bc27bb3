#include "service/backend.h"

#include <filesystem>
#include <iterator>
#include <map>
#include <unordered_set>

#include "clusterspec/cluster_spec_writer.h"
#include "core/engine_text.h"
#include "core/strings.h"
#include "scheduler/command_yaml.h"
#include "service/backend_work.h"
#include "service/live_world.h"
#include "service/reservation_views.h"
#include "service/scope_metrics.h"
#include "service/simulated_world.h"
#include "service/snapshot_view.h"
#include "sim/metrics.h"
#include "sim/simulator.h"
#include "topology/mig_layout.h"

namespace tessera {

using namespace backend_work;

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

struct Backend::HealthBoard {
  std::mutex mutex;
  BackendHealth now;
  ExecutorStatus executor;  // as of the last cycle; not a change worth telling the watchers
  uint64_t nextId = 0;
  void noteExecutor(ExecutorStatus status) {
    std::lock_guard lock(mutex);
    executor = std::move(status);
  }
  std::map<uint64_t, std::function<void(const BackendHealth&)>> watchers;
};

namespace {

std::unique_ptr<World> worldOf(const BackendConfig& c) {
  if (c.mode == BackendMode::Live)
    return std::make_unique<LiveWorld>(c.executor ? c.executor() : nullptr, c.catalog,
                                       c.autoAdmitNodes);
  return std::make_unique<SimulatedWorld>(SimulatedWorldConfig{
      c.speed, c.arrivalsPerHour, c.gpuFaultsPerDay, c.gpuFaultRepair, c.seed, c.runtimeScale});
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
  b->world_->setWake([raw = b.get()] { raw->wakeForCycle(); });
  TESSERA_CHECK(b->restoreOrCreate());
  b->health_->noteExecutor(b->world_->executor());
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
    TESSERA_TRY(loaded, state_->load(catalog()));
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
  eventCursor_ = engine_->eventCount();
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
  TESSERA_TRY(metricReadDb, Database::open(config_.database));
  metricReadDb_ = std::make_unique<Database>(std::move(metricReadDb));
  metricRead_ = std::make_unique<MetricStore>(*metricReadDb_, config_.retention);
  TESSERA_TRY(jobReadDb, Database::open(config_.database));
  jobReadDb_ = std::make_unique<Database>(std::move(jobReadDb));
  jobRead_ = std::make_unique<StateStore>(*jobReadDb_);
  jobReadEvents_ = std::make_unique<EventStore>(*jobReadDb_);
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
  // The executor's thread outlives this one: no more wake-ups into a stopped loop.
  world_->setWake({});
  if (hub_) hub_->stop();
}

void Backend::wakeForCycle() {
  {
    std::lock_guard lock(queueMutex_);
    cycleSoon_ = true;
  }
  queueCv_.notify_one();
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
      queueCv_.wait_until(lock, nextTick_,
                          [&] { return stopping_ || cycleSoon_ || !queue_.empty(); });
      while (!queue_.empty() && items.size() < config_.maxBatch) {
        items.push_back(std::move(queue_.front()));
        queue_.pop_front();
      }
      tick = config_.runCycles && !stopping_ && (cycleSoon_ || Clock::now() >= nextTick_);
      if (tick) cycleSoon_ = false;
      if (stopping_ && items.empty()) break;
    }
    runBatch(items, tick);
    if (tick)
      nextTick_ = Clock::now() +
                  std::chrono::microseconds(static_cast<int64_t>(config_.cycleSeconds * 1e6));
  }
}

namespace {

// Puts items[from..] back at the head of the queue, in order, for the next batch.
template <class Queue, class Items>
void requeueFront(Queue& queue, std::mutex& mutex, Items& items, size_t from) {
  std::lock_guard lock(mutex);
  for (size_t k = items.size(); k > from; --k) queue.push_front(std::move(items[k - 1]));
  items.resize(from);
}

}  // namespace

void Backend::runBatch(std::vector<std::unique_ptr<Item>>& items, bool tick) {
  if (broken_) {
    for (auto& item : items) item->finish(*broken_);
    return;
  }
  struct Finally {
    Backend* b;
    ~Finally() { b->endPublish(); }
  } publishEnds{this};
  if (const Seconds now = clockNow(); now > engine_->now()) (void)engine_->advanceTo(now);
  Batch batch;
  std::vector<bool> applied(items.size(), false);
  const auto now = Clock::now();
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i]->deadline && *items[i]->deadline < now) continue;
    items[i]->apply(*this, batch);
    applied[i] = true;
    // A node joining rebuilds the engine after this batch's commit: the requests after it wait
    // for the engine that has the node (a second admission then builds on the first).
    if (batch.joining && i + 1 < items.size()) {
      requeueFront(queue_, queueMutex_, items, i + 1);
      applied.resize(items.size());
      break;
    }
  }
  // The requests are committed and answered before the cycle runs: a cycle over a long queue
  // can take a second, and no reply should wait for it (one more fsync per cycle is the price).
  publishPending_ = tick && viewsRead();  // a view follows the commit, before the cycle
  const Status committed = commit(batch);
  // A node that joined is in the stored model: the engine is rebuilt on it as a restart would,
  // before anyone hears of the join.
  if (batch.joining) stateVersion_.fetch_add(1);
  const Status rebuilt = committed && batch.joining ? reloadFromStore() : okStatus();
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
  if (!rebuilt)
    return stopServing(Error{
        "a node joined the cluster model and " + rebuilt.error().str() + "; restart tesserad", {}});
  // The next cycle may place on the node, or on what the action freed.
  if (batch.joining || batch.acted) wakeForCycle();
  // Only what is durable is carried out: a crash before the next commit loses nothing the
  // cluster was told (the executor finds its own work again by tag).
  world_->afterDecisions(*engine_);
  // Readers during the cycle below are served this view rather than waiting for the cycle.
  if (viewWanted_.exchange(false) || ((tick || batch.tick) && viewsRead()) || readingsDue())
    publishView();
  endPublish();
  if (tick) {
    Batch cycle;
    cycle.tick = true;
    tickWork(cycle);
    // The views are built before the commit, from the state it stores: readers keep the last
    // view (and the rows it matches) while they are built, and wait only for the commit's write.
    PublishedView next;
    if (viewsRead()) {
      std::vector<JobId> changed;
      for (uint64_t i = eventCursor_; i < engine_->eventCount(); ++i)
        if (const Event* ev = engine_->eventAt(i); ev && ev->job != kNoJob)
          changed.push_back(ev->job);
      jobsView_.touched(changed);
      next = buildView(storeSeq_ + (engine_->eventCount() - eventCursor_), {});
    }
    publishPending_ = viewsRead();
    if (const Status st = commit(cycle); !st) return rollbackToStore(st.error());
    world_->afterDecisions(*engine_);
    if (next.snapshot || next.jobs)
      swapView(std::move(next));
    else if (viewsRead())
      publishView();
    endPublish();
  }
  forgetStoredHistory();
}

bool Backend::readRecently(const std::atomic<int64_t>& lastRead) {
  const int64_t now = Clock::now().time_since_epoch().count();
  return now - lastRead.load() < std::chrono::nanoseconds(std::chrono::minutes(1)).count();
}

bool Backend::viewsRead() const {
  return readRecently(lastSnapshotRead_) || readRecently(lastJobsRead_);
}

void Backend::publishView() {
  PublishedView current;
  {
    std::lock_guard lock(viewMutex_);
    if (view_.version == stateVersion_.load()) current = view_;
  }
  if (current.readings != readingsVersion_.load()) current.snapshot.reset();  // newer readings
  swapView(buildView(storeSeq_, std::move(current)));
}

bool Backend::readingsDue() {
  if (!readRecently(lastSnapshotRead_)) return false;
  std::lock_guard lock(viewMutex_);
  return view_.snapshot && view_.version == stateVersion_.load() && !readingsFresh(view_);
}

bool Backend::readingsFresh(const PublishedView& view) const {
  if (view.readings == readingsVersion_.load()) return true;
  const auto age = std::chrono::steady_clock::now() - view.snapshotBuilt;
  return age < std::chrono::duration<double>(config_.readingsRefreshSeconds);
}

Backend::PublishedView Backend::buildView(uint64_t lastEventSeq, PublishedView reuse) {
  PublishedView view = std::move(reuse);
  if (!view.snapshot && readRecently(lastSnapshotRead_)) {
    view.readings = readingsVersion_.load();
    view.snapshotBuilt = std::chrono::steady_clock::now();
    view.snapshot =
        std::make_shared<const ClusterSnapshot>(snapshotOf(*engine_, *world_, lastEventSeq));
  }
  if (!readRecently(lastJobsRead_))
    jobsView_.reset();  // nobody reads jobs: no copy of the job table is kept
  else if (!view.jobs)
    view.jobs = jobsView_.build(*engine_, *world_, extras_.actualRuntime);
  return view;
}

void Backend::swapView(PublishedView view) {
  {
    std::lock_guard lock(viewMutex_);
    view.version = stateVersion_.load();
    view_ = std::move(view);
  }
  viewCv_.notify_all();
}

void Backend::endPublish() {
  {
    std::lock_guard lock(viewMutex_);  // so a reader's wait cannot miss the change
    publishPending_ = false;
  }
  viewCv_.notify_all();
}

Backend::PublishedView Backend::currentView() {
  std::unique_lock lock(viewMutex_);
  const auto current = [this] { return view_.version == stateVersion_.load(); };
  // Never on the engine thread itself (a reply callback that reads): it publishes that view.
  if (!current() && publishPending_ && std::this_thread::get_id() != thread_.get_id())
    viewCv_.wait_for(lock, std::chrono::seconds(5), [&] { return current() || !publishPending_; });
  return current() ? view_ : PublishedView{};
}

void Backend::forgetStoredHistory() {
  // Everything the engine holds is stored and every follower of its log (the store, the usage
  // ledger, the executor) has seen it: finished jobs and old events are served from the
  // database from here on, so memory stays flat over months. Compacting the job table costs a
  // pass over it, hence only once enough finished records have gathered.
  const HistoryMemory& keep = config_.history;
  if (engine_->finishedInMemory() < keep.compactAfter &&
      engine_->events().size() < 2 * keep.events + 1)
    return;
  engine_->forgetHistory(engine_->now() - keep.finishedFor, keep.events);
}

Status Backend::commit(Batch& batch) {
  const auto& all = engine_->events();
  std::vector<Event> fresh(
      all.begin() + static_cast<std::ptrdiff_t>(eventCursor_ - engine_->firstEvent()), all.end());
  uint64_t seq = storeSeq_;
  for (Event& e : fresh) {
    e.seq = ++seq;
    if (e.job != kNoJob) batch.dirty.push_back(e.job);
  }
  std::sort(batch.dirty.begin(), batch.dirty.end());
  batch.dirty.erase(std::unique(batch.dirty.begin(), batch.dirty.end()), batch.dirty.end());
  const bool readingsOnly = batch.readingsChanged && config_.readingsRefreshSeconds > 0;
  if (batch.tick || !fresh.empty() || !batch.dirty.empty() || batch.setupChanged ||
      batch.worldChanged || (batch.readingsChanged && !readingsOnly))
    stateVersion_.fetch_add(1);
  if (batch.readingsChanged) readingsVersion_.fetch_add(1);
  jobsView_.touched(batch.dirty);
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
    if (batch.compactMetrics) {
      TESSERA_CHECK(metricStore_->compactInTransaction(engine_->now()));
      TESSERA_CHECK(pruneHistoryInTransaction(*db_, engine_->now(), config_.historyRetention));
    }
    if (batch.joining) TESSERA_CHECK(storeJoinedCluster(*batch.joining));
    return okStatus();
  });
  if (!st) return st;
  committedNow_ = engine_->now();
  storeSeq_ = seq;
  eventCursor_ = engine_->eventCount();
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
  stateVersion_.fetch_add(1);
  if (const Status st = reloadFromStore(); !st)
    stopServing(Error{
        "a write failed (" + why.str() + ") and " + st.error().str() + "; restart tesserad", {}});
}

const GpuCatalog& Backend::catalog() const {
  return config_.catalog ? *config_.catalog : GpuCatalog::builtin();
}

Status Backend::reloadFromStore() {
  auto loaded = state_->load(catalog());
  if (!loaded) return Error{"the state could not be reloaded (" + loaded.error().str() + ")", {}};
  engine_.emplace(std::move(loaded->engine));
  extras_ = std::move(loaded->extras);
  eventCursor_ = engine_->eventCount();
  jobsView_.reset();
  auto openRuns = usageStore_->openRuns();
  if (!openRuns)
    return Error{"the usage ledger could not be reloaded (" + openRuns.error().str() + ")", {}};
  usage_.resume(*engine_, std::move(*openRuns));
  if (auto restored = world_->restore(*engine_, extras_); !restored)
    return Error{"the world's state could not be reloaded (" + restored.error().str() + ")", {}};
  return okStatus();
}

// Inside the batch's transaction: the grown model replaces the stored one, and is loaded back
// with the batch's state before anything is committed: a model the database could not rebuild
// after a restart fails the batch and changes nothing.
Status Backend::storeJoinedCluster(const Cluster& cluster) {
  TESSERA_CHECK(state_->putMeta("cluster", writeClusterSpec(cluster)));
  auto trial = state_->load(catalog());
  if (!trial)
    return Error{"the cluster model with the new node does not load: " + trial.error().str(), {}};
  return okStatus();
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

ExecutorStatus Backend::executorStatus() const {
  std::lock_guard lock(health_->mutex);
  return health_->executor;
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
  health_->noteExecutor(world_->executor());
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

}  // namespace tessera
