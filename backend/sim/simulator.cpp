#include "sim/simulator.h"

#include <algorithm>
#include <optional>
#include <sstream>

#include "core/engine_text.h"
#include "scheduler/command_yaml.h"
#include "scheduler/node_filter.h"
#include "topology/mig_layout.h"
#include "topology/yaml_reader.h"

namespace tessera {

Simulator::Simulator(Engine engine, Trace trace, SimConfig config,
                     std::vector<ScheduledEvent> events)
    : engine_(std::move(engine)),
      trace_(std::move(trace)),
      config_(config),
      events_(std::move(events)),
      telemetry_(config.seed) {
  // The engine's backfill budget is wall-clock time: it would make a run depend on the machine
  // and its load. Simulated runs plan to the policy's depth instead, so a seed decides all.
  if (config_.deterministic) {
    Policy p = engine_.policy();
    p.backfill.timeBudgetMs = 3.6e6;
    (void)engine_.setPolicy(std::move(p));  // same plugins: cannot fail
  }
  const Seconds t0 = engine_.now();
  start_ = t0;
  shiftTraceIds();
  for (uint32_t i = 0; i < trace_.jobs.size(); ++i) {
    const Seconds at = std::max(t0, trace_.jobs[i].job.submitTime);
    push(at, Kind::Arrival, i);
    horizon_ = std::max(horizon_, at);
  }
  for (size_t i = 0; i < events_.size(); ++i) {
    push(std::max(t0, events_[i].at), Kind::Cluster, i);
    horizon_ = std::max(horizon_, events_[i].at);
  }
  // Work already in the engine (a forked live or saved state) keeps going.
  for (const JobRecord* j : engine_.jobs()) {
    RunInfo& r = runs_[j->job.id];
    if (j->state == JobState::Pending) pending_.insert(j->job.id);
    if (j->state != JobState::Running) continue;
    r.firstStart = j->startTime;
    r.runStart = j->startTime;
    r.gpus = j->gpusHeld(engine_.state());
    ++r.run;
    if (j->expectedEnd() < kForever)
      push(std::max(t0, j->expectedEnd()), Kind::End, j->job.id, r.run);
  }
  engineEventsSeen_ = engine_.events().size();
  push(t0, Kind::Sample);
  requestCycle();
}

// A trace replayed on a saved state would reuse the ids of the state's jobs: number the trace's
// jobs after the highest id the engine knows instead.
void Simulator::shiftTraceIds() {
  JobId highest = kNoJob;
  for (const JobRecord* j : engine_.jobs()) highest = std::max(highest, j->job.id);
  for (const Job& j : engine_.futureJobs()) highest = std::max(highest, j.id);
  for (const auto& e : events_)  // operators' submits at given times take their ids too
    if (const auto* o = std::get_if<simev::Operator>(&e.event))
      if (const auto* sub = std::get_if<cmd::Submit>(&o->command))
        highest = std::max(highest, sub->job.id);
  if (highest == kNoJob) return;
  for (auto& t : trace_.jobs) t.job.id += highest;
  note("trace job ids shifted by " + std::to_string(highest) + " (the starting state uses them)");
}

void Simulator::push(Seconds at, Kind kind, uint64_t a, uint64_t b) {
  queue_.push({at, seq_++, kind, a, b, kind == Kind::Sample});
  if (keepsRunning(kind)) ++realQueued_;
}

std::optional<Seconds> Simulator::nextEventTime() const {
  if (queue_.empty()) return std::nullopt;
  return queue_.top().at;
}

bool Simulator::finished() const {
  if (queue_.empty()) return true;
  return config_.until && queue_.top().at > *config_.until;
}

Status Simulator::run(const std::function<void(double)>& progress) {
  size_t reported = 0;
  while (!finished()) {
    const QueuedEvent e = queue_.top();
    queue_.pop();
    TESSERA_CHECK(process(e));
    if (progress && arrived_ != reported &&
        (arrived_ % 1024 == 0 || arrived_ == trace_.jobs.size())) {
      reported = arrived_;
      progress(trace_.jobs.empty() ? 1.0 : double(arrived_) / double(trace_.jobs.size()));
    }
  }
  if (config_.until && engine_.now() < *config_.until)
    TESSERA_CHECK(engine_.advanceTo(*config_.until));
  return okStatus();
}

Expected<bool> Simulator::runUntil(Seconds t) {
  while (!queue_.empty() && queue_.top().at <= t && !finished()) {
    const QueuedEvent e = queue_.top();
    queue_.pop();
    TESSERA_CHECK(process(e));
  }
  if (t > engine_.now() && (!config_.until || t <= *config_.until))
    TESSERA_CHECK(engine_.advanceTo(t));
  return !finished();
}

Status Simulator::process(const QueuedEvent& e) {
  if (keepsRunning(e.kind)) --realQueued_;
  TESSERA_CHECK(engine_.advanceTo(e.at));
  switch (e.kind) {
    case Kind::Arrival:
      return arrive(static_cast<uint32_t>(e.a));
    case Kind::End:
      return end(static_cast<JobId>(e.a), static_cast<uint32_t>(e.b));
    case Kind::Checkpoint:
      checkpointJob(static_cast<JobId>(e.a), static_cast<uint32_t>(e.b));
      return okStatus();
    case Kind::Cluster:
      return apply(events_[e.a]);
    case Kind::NodeBack:
      return returnNode(e.a, e.b);
    case Kind::MigApply:
      return finishReconfigure(e.a);
    case Kind::Cycle:
      if (e.a == kHeartbeat) return heartbeat();
      if (cycleAt_ && *cycleAt_ <= e.at) cycleAt_.reset();
      return cycle();
    case Kind::Sample:
      sample();
      // Work with an end ahead (or events to come) keeps the clock going; jobs that never end
      // do not, or a run would never finish.
      if (realQueued_ > 0) push(e.at + config_.sampleInterval, Kind::Sample);
      return okStatus();
  }
  return okStatus();
}

Status Simulator::arrive(uint32_t traceIndex) {
  Job job = trace_.jobs[traceIndex].job;
  job.submitTime = engine_.now();
  ++arrived_;
  auto id = engine_.submit(std::move(job), "trace");
  if (!id) {
    // One job the engine refuses (a model or pool the cluster lacks, a malformed request) is
    // the trace's problem, not the run's: say so and go on.
    ++refused_;
    note("job " + std::to_string(trace_.jobs[traceIndex].job.id) +
         " refused at submit: " + id.error().message);
    return okStatus();
  }
  runs_[*id].traceIndex = traceIndex;
  followEngineEvents();
  requestCycle();
  return okStatus();
}

Status Simulator::end(JobId id, uint32_t run) {
  const auto it = runs_.find(id);
  if (it == runs_.end() || it->second.run != run) return okStatus();  // preempted since
  RunInfo& r = it->second;
  const TraceJob* t = r.traceIndex < trace_.jobs.size() ? &trace_.jobs[r.traceIndex] : nullptr;
  if (r.timeLimited)
    TESSERA_CHECK(engine_.fail(id, phrase(text::kTimeLimit)));
  else if (t && t->failsAtEnd)
    TESSERA_CHECK(engine_.fail(id, phrase(text::kFailedAsInTrace)));
  else
    TESSERA_CHECK(engine_.complete(id));
  followEngineEvents();
  requestCycle();
  return okStatus();
}

void Simulator::checkpointJob(JobId id, uint32_t run) {
  const auto it = runs_.find(id);
  if (it == runs_.end() || it->second.run != run) return;
  if (!engine_.checkpoint(id).ok()) return;
  const JobRecord* j = engine_.job(id);
  if (j && j->job.checkpointInterval)
    push(engine_.now() + *j->job.checkpointInterval, Kind::Checkpoint, id, run);
}

Status Simulator::cycle() {
  if (!dirty_) return okStatus();
  if (lastCycle_ >= 0 && engine_.now() < lastCycle_ + config_.cycleInterval) {
    requestCycle();  // a cycle queued earlier came inside the period: keep the period
    return okStatus();
  }
  dirty_ = false;
  const CycleStats stats = engine_.runCycle();
  lastCycle_ = engine_.now();
  metrics_.recordCycle(stats);
  if (config_.checkInvariants && !stats.invariantViolations.empty())
    return Error{"at t=" + std::to_string(engine_.now()) +
                     "s the engine broke an invariant: " + stats.invariantViolations.front(),
                 {}};
  followEngineEvents();
  if (!pending_.empty() && realQueued_ > 0 && !heartbeatAt_) {
    heartbeatAt_ = engine_.now() + idlePeriod();
    push(*heartbeatAt_, Kind::Cycle, kHeartbeat);
  }
  return okStatus();
}

// Backfill may plan starts that nothing will announce (a reservation window ending, an estimate
// passing): while work waits and time still moves, a cycle runs at least every idle period.
Status Simulator::heartbeat() {
  heartbeatAt_.reset();
  if (pending_.empty() || realQueued_ == 0) return okStatus();
  if (engine_.now() >= lastCycle_ + idlePeriod()) {
    dirty_ = true;
    return cycle();
  }
  heartbeatAt_ = lastCycle_ + idlePeriod();
  push(*heartbeatAt_, Kind::Cycle, kHeartbeat);
  return okStatus();
}

// Something changed: a cycle as soon as the period allows (an idle heartbeat queued later does
// not delay it; it finds nothing to do or a period not yet over).
void Simulator::requestCycle() {
  dirty_ = true;
  const Seconds at =
      lastCycle_ < 0 ? engine_.now() : std::max(engine_.now(), lastCycle_ + config_.cycleInterval);
  if (cycleAt_ && *cycleAt_ <= at) return;
  cycleAt_ = at;
  push(at, Kind::Cycle);
}

// Mirrors what the engine did into the simulator's own bookkeeping: which jobs wait, which
// started (and when each run must end), which were stopped.
void Simulator::followEngineEvents() {
  if (usage_) usage_->follow(engine_);
  const auto& events = engine_.events();
  std::unordered_set<JobId> preemptors;
  for (size_t i = engineEventsSeen_; i < events.size(); ++i)
    if (events[i].kind == EventKind::Preempted && events[i].by != kNoJob)
      preemptors.insert(events[i].by);
  for (; engineEventsSeen_ < events.size(); ++engineEventsSeen_) {
    const Event& e = events[engineEventsSeen_];
    switch (e.kind) {
      case EventKind::Submitted:
      case EventKind::Requeued:
        if (e.to == JobState::Pending) pending_.insert(e.job);
        break;
      case EventKind::Started:
        pending_.erase(e.job);
        onStarted(e.job, preemptors.count(e.job) > 0);
        break;
      case EventKind::Preempted:
      case EventKind::Completed:
      case EventKind::Failed:
      case EventKind::Cancelled:
        pending_.erase(e.job);
        if (e.from == JobState::Running) onStopped(e.job);
        break;
      default:
        break;
    }
  }
}

void Simulator::onStarted(JobId id, bool afterPreemption) {
  RunInfo& r = runs_[id];
  const JobRecord* j = engine_.job(id);
  ++r.run;
  r.runStart = engine_.now();
  r.gpus = j->gpusHeld(engine_.state());
  r.timeLimited = false;
  if (r.firstStart < 0) r.firstStart = r.runStart;
  // The real runtime comes from the trace; work the engine started on its own (a forked state)
  // runs for its estimate, or until the end of the simulation without one.
  std::optional<Seconds> runtime;
  if (r.traceIndex < trace_.jobs.size())
    runtime = trace_.jobs[r.traceIndex].runtime;
  else
    runtime = j->job.estimatedRuntime;
  // The preemptor's work begins once its victims had their grace period to exit.
  const Seconds begin = r.runStart + (afterPreemption ? config_.preemptionGrace : 0);
  if (j->job.checkpointInterval && *j->job.checkpointInterval > 0)
    push(begin + *j->job.checkpointInterval, Kind::Checkpoint, id, r.run);
  if (!runtime) return;
  Seconds left = std::max<Seconds>(0, *runtime - j->workKept);
  if (config_.enforceTimeLimit && j->job.estimatedRuntime && r.traceIndex < trace_.jobs.size() &&
      left > *j->job.estimatedRuntime) {
    left = *j->job.estimatedRuntime;
    r.timeLimited = true;
  }
  push(begin + left, Kind::End, id, r.run);
}

void Simulator::onStopped(JobId id) {
  RunInfo& r = runs_[id];
  r.gpuSeconds += r.gpus * double(engine_.now() - r.runStart);
  ++r.run;  // its pending End and Checkpoint events no longer apply
}

void Simulator::requeueJobsOn(NodeId n, std::optional<GpuId> gpu, const Text& why) {
  const std::vector<JobId> victims = engine_.runningJobsOn(n, gpu);
  // The engine books these as preemptions; the outcomes move them to interruptions, so policy
  // comparisons see only what the policy decided.
  for (JobId v : victims) {
    const JobRecord* j = engine_.job(v);
    const double before = j->gpuHoursLost;
    if (!engine_.preempt(v, kNoJob, "simulator", why)) continue;
    RunInfo& r = runs_[v];
    ++r.interruptions;
    r.gpuHoursLostToInterruptions += engine_.job(v)->gpuHoursLost - before;
  }
  followEngineEvents();
}

Status Simulator::apply(const ScheduledEvent& e) {
  if (const auto* f = std::get_if<simev::NodeFailure>(&e.event)) {
    TESSERA_TRY(n, nodeNamed(f->node));
    requeueJobsOn(n, std::nullopt, phrase(text::kNodeFailed, f->node));
    TESSERA_CHECK(holdNode(n, NodeHold{HoldOwner::Failure, {}, phrase(text::kOutNodeFailure), true},
                           engine_.now() + f->repair));
    note("node " + f->node + " failed; back in " + formatDuration(f->repair));
  } else if (const auto* g = std::get_if<simev::GpuFault>(&e.event)) {
    TESSERA_TRY(gpu, gpuNamed(g->gpu));
    const NodeId n = engine_.cluster().gpu(gpu).node;
    requeueJobsOn(n, gpu, phrase(text::kGpuFaultXid, g->gpu, g->xid));
    // Most Xids that need a GPU reset take the node out: drain it, reset, return it.
    TESSERA_CHECK(holdNode(
        n, NodeHold{HoldOwner::GpuFault, gpu, phrase(text::kOutXid, g->xid, g->gpu), false},
        engine_.now() + g->repair));
    note("Xid " + std::to_string(g->xid) + " on " + g->gpu + "; node drained for " +
         formatDuration(g->repair));
  } else if (const auto* m = std::get_if<simev::MigReconfigure>(&e.event)) {
    TESSERA_CHECK(startReconfigure(*m, static_cast<size_t>(&e - events_.data())));
  } else if (const auto* o = std::get_if<simev::Operator>(&e.event)) {
    auto result = execute(engine_, o->command, o->actor, false);
    note(o->actor + ": " + describe(o->command) + ": " +
         (result ? result->message.english() : "refused: " + result.error().message));
    followEngineEvents();
  }
  requestCycle();
  return okStatus();
}

// Failures, faults and reconfigurations may overlap on one node: each is its own hold, so the
// node stays out (down while a failure lasts) until the last is over, and an operator's drain
// meanwhile is theirs and outlasts them all.
namespace {
uint64_t holdKey(const NodeHold& h) {
  return (uint64_t{static_cast<uint8_t>(h.owner)} << 32) | (h.gpu ? uint64_t{*h.gpu} + 1 : 0);
}
HoldOwner ownerOfKey(uint64_t key) {
  return static_cast<HoldOwner>(key >> 32);
}
std::optional<GpuId> gpuOfKey(uint64_t key) {
  const uint64_t g = key & 0xffffffffu;
  return g ? std::optional<GpuId>(static_cast<GpuId>(g - 1)) : std::nullopt;
}
}  // namespace

Status Simulator::holdNode(NodeId n, NodeHold hold, Seconds until) {
  const uint64_t key = holdKey(hold);
  Seconds& end = holdUntil_[{n, key}];
  end = std::max(end, until);
  TESSERA_CHECK(engine_.putNodeHold(n, std::move(hold)));
  push(until, Kind::NodeBack, n, key);
  return okStatus();
}

Status Simulator::returnNode(uint64_t node, uint64_t key) {
  const auto it = holdUntil_.find({node, key});
  if (it == holdUntil_.end() || it->second > engine_.now()) return okStatus();  // extended
  holdUntil_.erase(it);
  const auto n = static_cast<NodeId>(node);
  TESSERA_CHECK(engine_.removeNodeHold(n, ownerOfKey(key), gpuOfKey(key)));
  const NodeState now = engine_.state().nodeState(n);
  if (now != NodeState::Down)
    note("node " + engine_.cluster().node(n).name +
         (now == NodeState::Up ? " is back" : " is repaired (still drained)"));
  requestCycle();
  return okStatus();
}

// Like the GPU operator's MIG manager: the node is drained and the GPU emptied first, the new
// layout takes effect after the reconfiguration time, then the node returns.
Status Simulator::startReconfigure(const simev::MigReconfigure& m, size_t eventIndex) {
  TESSERA_TRY(g, gpuNamed(m.gpu));
  TESSERA_TRY(layout, parseMigLayout(engine_.cluster().modelOf(g), m.layout));
  TESSERA_CHECK(engine_.state().checkMigLayout(g, layout));
  const NodeId n = engine_.cluster().gpu(g).node;
  requeueJobsOn(n, g, phrase(text::kBeingRepartitioned, m.gpu));
  // Queued before the hold's return at the same time, so the layout applies first.
  push(engine_.now() + config_.migReconfigTime, Kind::MigApply, eventIndex);
  TESSERA_CHECK(holdNode(
      n, NodeHold{HoldOwner::MigReconfigure, g, phrase(text::kOutMigRepartition, m.gpu), false},
      engine_.now() + config_.migReconfigTime));
  note("repartitioning " + m.gpu + " to " + m.layout);
  return okStatus();
}

Status Simulator::finishReconfigure(size_t eventIndex) {
  const auto& m = std::get<simev::MigReconfigure>(events_[eventIndex].event);
  TESSERA_TRY(g, gpuNamed(m.gpu));
  TESSERA_TRY(layout, parseMigLayout(engine_.cluster().modelOf(g), m.layout));
  const NodeId n = engine_.cluster().gpu(g).node;
  requeueJobsOn(n, g, phrase(text::kBeingRepartitioned, m.gpu));
  TESSERA_CHECK(engine_.repartition(g, layout, true, "simulator"));
  note("GPU " + m.gpu + " now " + m.layout);
  return okStatus();
}

void Simulator::sample() {
  std::vector<const JobRecord*> pending, running = engine_.running();
  pending.reserve(pending_.size());
  for (JobId id : pending_)
    if (const JobRecord* j = engine_.job(id)) pending.push_back(j);
  metrics_.sample(engine_, telemetry(), pending, running);
  if (usage_) usage_->sample(engine_);
}

UsageProfile Simulator::usageOf(JobId id) const {
  const auto it = runs_.find(id);
  if (it != runs_.end() && it->second.traceIndex < trace_.jobs.size())
    return trace_.jobs[it->second.traceIndex].usage;
  const JobRecord* j = engine_.job(id);
  return j ? defaultUsage(j->job) : UsageProfile::ComputeBound;
}

std::vector<GpuTelemetry> Simulator::telemetry() const {
  return telemetry_.gpus(engine_.state(), engine_.now(), [this](JobId id) { return usageOf(id); });
}

JobTelemetry Simulator::jobTelemetry(JobId job, Seconds t) const {
  return telemetry_.sample(job, usageOf(job), t);
}

namespace {

// GPU equivalents a job asks for before it runs. A MIG instance counts as its profile's compute
// slices over the GPU's (3g on a 7-slice A100 is 3/7), as the usage accounting charges it; among
// the cluster's models that offer the profile, the smallest share.
double demandOf(const Cluster& c, const Job& job) {
  if (job.perTask.kind != GpuRequest::Kind::Mig) return job.gpuDemand();
  std::optional<double> share;
  for (const Node& n : c.nodes()) {
    const auto& mig = n.gpuModel().mig;
    const int p = mig ? mig->profileIndex(job.perTask.migProfile) : -1;
    if (p < 0 || !nodeEligible(job, n)) continue;
    const double s =
        double(mig->profiles[static_cast<size_t>(p)].computeSlices) / mig->computeSlices;
    share = std::min(share.value_or(s), s);
  }
  return share ? job.tasks * *share : job.gpuDemand();
}

}  // namespace

std::vector<JobOutcome> Simulator::outcomes() const {
  std::vector<JobOutcome> out;
  for (const JobRecord* j : engine_.jobs()) {
    const auto it = runs_.find(j->job.id);
    JobOutcome o;
    o.id = j->job.id;
    o.team = j->job.team;
    o.priorityClass = j->job.priorityClass;
    o.workloadClass = j->job.workloadClass;
    o.gpus = demandOf(engine_.cluster(), j->job);
    o.submit = j->job.submitTime;
    o.state = j->state;
    o.preemptions = j->preemptions;
    o.gpuHoursLost = j->gpuHoursLost;
    if (it != runs_.end()) {
      const RunInfo& r = it->second;
      if (r.gpus > 0) o.gpus = r.gpus;  // what it held, as the accounting charges it
      o.preemptions -= r.interruptions;
      o.gpuHoursLost -= r.gpuHoursLostToInterruptions;
      o.interruptions = r.interruptions;
      o.gpuHoursLostToInterruptions = r.gpuHoursLostToInterruptions;
      o.firstStart = r.firstStart;
      double seconds = r.gpuSeconds;
      if (j->state == JobState::Running) seconds += r.gpus * double(engine_.now() - r.runStart);
      o.gpuHoursUsed = seconds / 3600.0;
      if (r.traceIndex < trace_.jobs.size()) o.runtime = trace_.jobs[r.traceIndex].runtime;
    }
    if (!j->active()) o.end = j->endTime;
    if (o.runtime == 0 && j->job.estimatedRuntime) o.runtime = *j->job.estimatedRuntime;
    out.push_back(std::move(o));
  }
  return out;
}

SimSummary Simulator::summary() const {
  std::map<std::string, double> weights;
  for (const Team& t : trace_.teams) weights[t.name] = t.weight;
  SimSummary s = summarize(metrics_, outcomes(), weights, start_, engine_.now());
  s.refused = refused_;
  return s;
}

uint64_t Simulator::logHash() const {
  uint64_t h = 1469598103934665603ULL;
  auto add = [&](const void* p, size_t n) {
    for (size_t i = 0; i < n; ++i) {
      h ^= static_cast<const unsigned char*>(p)[i];
      h *= 1099511628211ULL;
    }
  };
  for (const Event& e : engine_.events()) {
    add(&e.time, sizeof e.time);
    add(&e.kind, sizeof e.kind);
    add(&e.job, sizeof e.job);
    const std::string reason = e.reason.english();
    add(reason.data(), reason.size());
  }
  for (const auto& l : log_) {
    add(&l.time, sizeof l.time);
    add(l.what.data(), l.what.size());
  }
  return h;
}

Expected<NodeId> Simulator::nodeNamed(const std::string& name) const {
  if (const Node* n = engine_.cluster().findNode(name)) return n->id;
  return Error{"no node '" + name + "' in the cluster", {}};
}

Expected<GpuId> Simulator::gpuNamed(const std::string& name) const {
  if (const Gpu* g = engine_.cluster().findGpu(name)) return g->id;
  return Error{"no GPU '" + name + "' in the cluster (write node/index)", {}};
}

void Simulator::note(std::string what) {
  log_.push_back({engine_.now(), std::move(what)});
}

UsageProfile defaultUsage(const Job& job) {
  switch (job.workloadClass) {
    case WorkloadClass::Inference:
      return UsageProfile::Inference;
    case WorkloadClass::Interactive:
      return UsageProfile::IdleNotebook;
    default:
      return UsageProfile::ComputeBound;
  }
}

// ---- pacing

void PacedClock::start(Seconds simNow, double wallSeconds) {
  simStart_ = simNow;
  wallStart_ = wallSeconds;
}

void PacedClock::setSpeed(double speed, double wallSeconds) {
  simStart_ = simTimeAt(wallSeconds);
  wallStart_ = wallSeconds;
  speed_ = speed;
}

Seconds PacedClock::simTimeAt(double wallSeconds) const {
  return simStart_ + static_cast<Seconds>((wallSeconds - wallStart_) * speed_);
}

// ---- engines for traces

Expected<Engine> engineForTrace(std::shared_ptr<const Cluster> cluster, const Trace& trace,
                                Policy policy) {
  Workload tenants;
  tenants.priorityClasses =
      trace.priorityClasses.empty() ? defaultPriorityClasses() : trace.priorityClasses;
  tenants.teams = trace.teams;
  return Engine::create(std::move(cluster), tenants, std::move(policy));
}

}  // namespace tessera
