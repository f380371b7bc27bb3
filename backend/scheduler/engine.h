#pragma once
// The scheduler engine: jobs and their lifecycle, the team tree with quotas and fair share, the
// policy's plugins, and the cycle that orders, admits, places (with topology, MIG and fractional
// GPUs), preempts and backfills. One Engine is a value: copying it forks the whole scheduler
// (the simulator's what-ifs). A dry run of an operator command needs no copy: Engine::WhatIf
// runs the command and a cycle on the engine itself and puts everything back.
//
// A cycle decides on the engine's state through one transaction per job; placement is tentative
// until the job's permit plugins agree and is then committed as a whole. Each cycle leaves:
// running jobs started, preempted jobs requeued, a reason, queue position and (when backfill
// planned one) an estimated start for every pending job, and statistics like Slurm's sdiag.
#include <array>
#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "core/engine_text.h"
#include "core/huge_pages.h"
#include "scheduler/events.h"
#include "scheduler/fair_share.h"
#include "scheduler/feasibility.h"
#include "scheduler/node_holds.h"
#include "scheduler/plugin.h"
#include "scheduler/policy.h"
#include "scheduler/queue_index.h"
#include "workload/workload_spec.h"

namespace tessera {

struct JobRecord {
  // What every cycle reads or writes for every pending job comes first, so one or two cache
  // lines serve a job whose verdict is reused (150,000 pending jobs are visited per cycle).
  uint32_t shape = 0;  // what it asks for (interned), for the "same request" cache
  int team = -1;       // index in the engine's QuotaBook (-1 = a team the tenants do not list)
  JobState state = JobState::Pending;
  PluginCode pendingCode = PluginCode::Unschedulable;
  int32_t runningSlot = -1;    // index in the engine's running list
  Seconds workKept = 0;        // seconds of work saved by checkpoints in earlier runs
  std::optional<Seconds> eta;  // estimated start from the last cycle's backfill plan
  Text reason;                 // why it is pending, or why it last changed state
  std::vector<GpuId> pinned;   // operator pin, resolved
  std::string blockedBy;       // the admission or permit plugin that held it back ("" = placement)
  Job job;
  std::vector<JobId> waitingFor;  // running jobs whose end that estimate needs
  std::optional<GangPlacement> placement;
  Seconds startTime = 0;  // of the current (or last) run
  Seconds endTime = 0;    // when it completed, failed or was cancelled
  int preemptions = 0;
  double gpuHoursLost = 0;  // to preemptions
  // Its events by number in the engine's log (Engine::eventAt): counted from the engine's
  // first event, so they stay valid when older events are forgotten.
  std::vector<uint32_t> eventIndex;
  // While it runs, its placement's nodes and quota charge, kept from its start: backfill
  // releases every overdue running job again for each reservation it plans.
  std::vector<NodeId> placedNodes;
  std::vector<GpuId> placedGpus;  // each once
  QuotaCharge placedCharge;

  [[nodiscard]] bool active() const {
    return state == JobState::Pending || state == JobState::Admitted || state == JobState::Running;
  }
  // Seconds of work still to do (nullopt without a runtime estimate).
  [[nodiscard]] std::optional<Seconds> remaining() const;
  // When a running job is expected to end; kForever without an estimate.
  [[nodiscard]] Seconds expectedEnd() const;
  // When a job started now would end.
  [[nodiscard]] Seconds endIfStartedAt(Seconds t) const;
  // The time of its last checkpoint in the current run (startTime when none yet).
  [[nodiscard]] Seconds lastCheckpointAt(Seconds now) const;
  // The nodes its placement uses, each once (empty when not placed).
  [[nodiscard]] std::vector<NodeId> nodes() const;
  // GPUs it holds (whole-GPU equivalents), from its placement.
  [[nodiscard]] double gpusHeld(const ClusterState& occupancy) const;
};

// Every job the engine holds, in arrival order; the cycle visits them in queue order.
using JobRecords = std::vector<JobRecord, HugePageAllocator<JobRecord>>;

// Per-cycle statistics (Slurm sdiag's main and backfill sections).
struct CycleStats {
  uint64_t cycle = 0;
  int backfillBaseLost = 0;  // BackfillBase::lost(): nonzero is a defect
  Seconds now = 0;
  double cycleMs = 0;
  int pending = 0;     // at the start of the cycle
  int considered = 0;  // pending jobs looked at
  int started = 0;
  int backfilled = 0;           // started behind a blocked higher job with a reservation
  int preempted = 0;            // victims evicted
  int reservations = 0;         // backfill reservations made (depth reached)
  bool backfillPlanned = true;  // false between plans when the policy sets an interval
  double orderMs = 0;           // building the context and sorting the queue
  double preemptMs = 0;         // searching for victims
  double backfillMs = 0;        // time spent planning reservations
  bool backfillBudgetHit = false;
  int shapeCacheHits = 0;   // pending jobs skipped as identical to one that did not fit
  int placements = 0;       // placement searches run (the cycle's costly step)
  int refusedUnplaced = 0;  // refused by a permit plugin before any placement (quota at its limit)
  std::vector<std::string> invariantViolations;
};

struct EngineStats {
  uint64_t cycles = 0;
  double lastCycleMs = 0;
  double maxCycleMs = 0;
  double totalCycleMs = 0;
  uint64_t started = 0;
  uint64_t backfilled = 0;
  uint64_t preempted = 0;
  CycleStats last;
};

class Engine {
 public:
  // `tenants` gives the priority classes and teams; its jobs are submitted at their submit time
  // order. Fails when the policy names unknown plugins.
  static Expected<Engine> create(std::shared_ptr<const Cluster> cluster, const Workload& tenants,
                                 Policy policy = {});

  // --- state
  [[nodiscard]] const ClusterState& state() const { return state_; }
  // Why a node is out, per owner; its state in state() is derived from these.
  [[nodiscard]] const NodeHolds& nodeHolds(NodeId n) const;
  // Why a node is not up: an operator's words as a literal ("psu"), a fault's or the simulator's
  // as a sentence ("Xid 79 on GPU 3"); empty for an up node or when no reason was given.
  [[nodiscard]] const Text& nodeReason(NodeId n) const { return nodeHolds(n).reason(); }
  [[nodiscard]] const Cluster& cluster() const { return state_.cluster(); }
  [[nodiscard]] Seconds now() const { return now_; }
  [[nodiscard]] const Policy& policy() const { return policy_; }
  [[nodiscard]] const QuotaBook& quotas() const { return quotas_; }
  [[nodiscard]] const FairShare& fairShare() const { return fairShare_; }
  [[nodiscard]] const ReservationBook& reservations() const { return reservations_; }
  [[nodiscard]] const std::vector<PriorityClass>& priorityClasses() const { return classes_; }
  // The events still in memory: all of them unless forgetHistory dropped the oldest. Event i
  // of this vector is number firstEvent() + i of the log.
  [[nodiscard]] const std::vector<Event>& events() const { return events_; }
  [[nodiscard]] uint64_t firstEvent() const { return eventBase_; }
  // Events ever recorded (a follower's cursor: it has seen events [0, cursor)).
  [[nodiscard]] uint64_t eventCount() const { return eventBase_ + events_.size(); }
  // Event number `i` of the log; nullptr once forgotten (or not recorded yet).
  [[nodiscard]] const Event* eventAt(uint64_t i) const {
    return i >= eventBase_ && i - eventBase_ < events_.size() ? &events_[i - eventBase_] : nullptr;
  }
  // Finished job records still in memory (what forgetHistory would drop).
  [[nodiscard]] size_t finishedInMemory() const { return finished_; }
  [[nodiscard]] const EngineStats& stats() const { return stats_; }
  [[nodiscard]] const JobRecord* job(JobId id) const;
  // 1-based position among pending jobs as of the last cycle; 0 when the job was not pending
  // then (submitted or requeued since, or running).
  [[nodiscard]] int queuePosition(const JobRecord& job) const {
    const auto i = static_cast<size_t>(&job - jobs_.data());
    return i < positions_.size() && job.state == JobState::Pending ? positions_[i] : 0;
  }
  [[nodiscard]] std::vector<const JobRecord*> jobs() const;  // in submission order
  // The running jobs with a task on node `n` (holding GPU `gpu`, when given): what a node
  // failure or a GPU fault interrupts.
  [[nodiscard]] std::vector<JobId> runningJobsOn(NodeId n,
                                                 std::optional<GpuId> gpu = std::nullopt) const;
  // Submitted with a submit time the clock has not reached yet.
  [[nodiscard]] const std::vector<Job>& futureJobs() const { return future_; }
  // Pending jobs in the order the next cycle considers them.
  [[nodiscard]] std::vector<const JobRecord*> queue() const;
  [[nodiscard]] CycleContext context() const;
  [[nodiscard]] const PluginSet& plugins() const { return plugins_; }
  [[nodiscard]] std::vector<ResourceUse> teamUse() const { return teamUse_; }

  // --- driving
  // Moves the clock forward (never back); fair-share usage accrues and decays.
  Status advanceTo(Seconds now);
  CycleStats runCycle();
  // Takes a new job, refusing one that could never run on this cluster (scheduler/feasibility.h)
  // or whose fields break the input limits.
  Expected<JobId> submit(Job job, const std::string& actor = "scheduler");
  // Takes back a job submitted before (a restart, a scenario's running state) with the checks of
  // its identity, team, class and pins, but not whether it could still run: a job that became
  // impossible (the cluster lost nodes) stays pending with its reason, and nothing stored is lost.
  Expected<JobId> resubmit(Job job, const std::string& actor = "scheduler");
  // Whether submit would take the job (team, class, request, pins, id not taken); changes nothing.
  [[nodiscard]] Status validate(Job job) const;
  Status complete(JobId id, Text reason = phrase(text::kFinished));
  Status fail(JobId id, Text reason);
  // Puts a pending job back where it was running (a snapshot or export being loaded, a backend
  // restarting): exactly these GPUs (MIG: the instance at `migStart`), started at `started`
  // with `workKept` seconds saved from earlier runs. Fails, changing nothing, when the GPUs are
  // not free or do not match the job's request. Quotas are charged but not checked: the job was
  // already admitted once.
  struct RestoredTask {
    NodeId node = 0;
    std::vector<GpuId> gpus;
    int migStart = -1;
  };
  Status restoreRunning(JobId id, const std::vector<RestoredTask>& tasks, Seconds started,
                        Seconds workKept);
  // A running job's GPUs moved to those the cluster bound (Slurm picks a node's GPUs for whole
  // GPUs, shards and MPS clients; not MIG, nor MPS in MIG): same nodes per task, same count,
  // other GPUs. Audited under `actor`. Fails, changing nothing, when the shape differs or the
  // GPUs have no room.
  Status rebind(JobId id, const std::vector<RestoredTask>& tasks, const std::string& actor);
  // Sets the teams' fair-share usage (decayed GPU-seconds, sub-teams included) as a snapshot
  // taken at the current clock recorded it; teams not listed have none.
  Status restoreFairShare(const std::vector<std::pair<std::string, double>>& usage);
  // Sets a job's history counters as a saved state recorded them (a backend restarting).
  Status restoreCounters(JobId id, int preemptions, double gpuHoursLost);
  // Records a checkpoint of a running job now (the simulator's checkpoint events).
  Status checkpoint(JobId id);

  // --- what-ifs on the engine itself
  // A dry run's command and cycle run on this engine and are undone as a whole when the WhatIf
  // ends: what a command or a cycle may change is saved when it begins (the cluster state, the
  // queues and books, in size bounded by the cluster and the running jobs) and a job record on
  // its first change. No copy of the job table, which a long queue and a long history made the
  // dominant cost of a fork. One at a time.
  //
  // The same journal makes an applied command atomic: `Purpose::Apply` keeps the policy as it
  // is (a prediction keeps the last backfill plan), and keep() ends it without undoing.
  class WhatIf {
   public:
    enum class Purpose : uint8_t { Predict, Apply };
    explicit WhatIf(Engine& engine, Purpose purpose = Purpose::Predict);
    ~WhatIf();
    WhatIf(const WhatIf&) = delete;
    WhatIf& operator=(const WhatIf&) = delete;
    // The jobs whose record changed since it began, in storage order: (as it was, as it is);
    // `as it was` is nullptr for a job submitted inside the what-if.
    [[nodiscard]] std::vector<std::pair<const JobRecord*, const JobRecord*>> changedJobs() const;
    // Keeps every change made since it began; nothing is undone at the end.
    void keep();

   private:
    Engine& engine_;
    bool kept_ = false;
  };

  // --- used by plugins, commands and explanations
  // The state for tentative what-ifs: change it only through a Transaction and discard it.
  [[nodiscard]] ClusterState& scratch() const { return state_; }
  // Where the job would go now, in a transaction the caller owns (the cycle's gate and scorer).
  GangResult tryPlace(Transaction& tx, const JobRecord& job, const CycleContext& ctx, Seconds start,
                      const PlacementOptions& extra = {}) const;
  [[nodiscard]] PluginStatus admit(const CycleContext& ctx, const JobRecord& job) const;
  // The permit plugins' refusal that holds wherever the job lands (success: place, then permit).
  [[nodiscard]] PluginStatus permitAnywhere(const CycleContext& ctx, const JobRecord& job) const;
  [[nodiscard]] PluginStatus permit(const CycleContext& ctx, const JobRecord& job,
                                    const GangPlacement& placement) const;
  [[nodiscard]] QuotaCharge chargeOf(const JobRecord& job, const GangPlacement& p) const;
  [[nodiscard]] std::vector<const JobRecord*> running() const;
  // Pending jobs in no set order, read from the index of active jobs: no visit to the finished
  // ones (a long-running backend samples its metrics without growing with its history).
  [[nodiscard]] std::vector<const JobRecord*> pending() const;
  // Running jobs by expected end, then id (jobs without an estimate last, at kForever).
  struct RunningEnd {
    Seconds end = 0;
    JobId id = kNoJob;
    uint32_t index = 0;  // into jobs()
    friend auto operator<=>(const RunningEnd& a, const RunningEnd& b) {
      return std::tie(a.end, a.id) <=> std::tie(b.end, b.id);
    }
    friend bool operator==(const RunningEnd& a, const RunningEnd& b) {
      return a.end == b.end && a.id == b.id;
    }
  };
  [[nodiscard]] const std::set<RunningEnd>& runningByEnd() const { return runningEnds_; }
  [[nodiscard]] const JobRecord& jobAt(uint32_t index) const { return jobs_[index]; }
  // Per node, its unit at `level` (topologyUnitOf) as a dense index below topologyUnitCount()
  // (-1 = none there). Backfill and preemption count room per unit for every blocked job; the
  // cluster never changes under an engine, so the table is built once.
  [[nodiscard]] const std::vector<int32_t>& topologyUnits(TopologyLevel level) const {
    return unitIndex_[static_cast<size_t>(level)];
  }
  [[nodiscard]] size_t topologyUnitCount() const { return unitCount_; }
  // Whether every unit placement may use for a gang bounded by `level` (a node, a multi-node
  // NVLink domain, a leaf, a spine, up to `level`) lies within one unit at `level`: then room
  // counted per unit at `level` bounds what any placement can find.
  [[nodiscard]] bool topologyNests(TopologyLevel level) const {
    return nests_[static_cast<size_t>(level)];
  }

  // --- mutations used by operator commands (command.cpp); each records its event.
  Status cancel(JobId id, const std::string& actor, Text reason);
  Status hold(JobId id, bool held, const std::string& actor);
  Status setPriority(JobId id, const std::string& priorityClass, const std::string& actor);
  Status moveInQueue(JobId id, int64_t rank);
  Status pin(JobId id, std::vector<GpuId> gpus);
  Status preempt(JobId victim, JobId by, const std::string& actor, Text reason);
  // The operator's hold on a node: drained puts it (replacing its reason), undrained removes it.
  Status drain(NodeId n, bool drained, Text reason = {});
  // Adds `hold` to node n, or replaces the one with the same owner and GPU; `since` 0 means now.
  // A hold that takes the node down needs it empty: requeue its jobs first.
  Status putNodeHold(NodeId n, NodeHold hold);
  // Removes the owner's hold (its hold for `gpu`, for the owners that hold per GPU); removing
  // a hold that is not there is no error: a repair may come after an operator cleared it.
  Status removeNodeHold(NodeId n, HoldOwner owner, std::optional<GpuId> gpu = std::nullopt);
  Status repartition(GpuId g, const MigLayout& layout, bool force, const std::string& actor);
  // Replaces the policy (a what-if fork, an operator's policy change); fails, changing
  // nothing, when it names unknown plugins.
  Status setPolicy(Policy policy);
  Status setQuota(const std::string& team, const std::string& key, const Quota& q);
  Status addReservation(Reservation r);
  Status removeReservation(const std::string& id);
  // An operator command in the audit log: `what` (describeText) and its result, e.g.
  // phrase(kAuditApplied, what, message).
  void recordCommand(const std::string& actor, Text line);

  // A long-running backend's memory stays flat: it keeps finished jobs and old events in its
  // database and drops them here once every follower of the log has seen them. Forgets the
  // finished jobs that ended before `endedBefore` and all but the newest `keepEvents` events;
  // job(id) then answers nullptr for a forgotten job, as after a restart. Never used by the
  // simulator, whose results read the whole history.
  struct Forgotten {
    size_t jobs = 0;
    size_t events = 0;
  };
  Forgotten forgetHistory(Seconds endedBefore, size_t keepEvents);

  [[nodiscard]] std::optional<int> priorityOf(const std::string& cls) const;
  [[nodiscard]] std::vector<std::string> invariantViolations() const;

 private:
  friend class BackfillBase;  // mirrors starts through takeRestored
  Engine(ClusterState state, Policy policy, PluginSet plugins);

  JobRecord* mutableJob(JobId id);
  enum class Check : uint8_t { Everything, KnownJob };
  // Checks a job for submit (KnownJob: not whether it could ever run, nor the input limits),
  // resolves its priority and returns its pin as GPUs.
  Expected<std::vector<GpuId>> resolveSubmit(Job& job, Check check = Check::Everything) const;
  Expected<JobId> take(Job job, const std::string& actor, Check check);
  void addEvent(EventKind kind, JobRecord& job, JobState to, Text reason,
                const std::string& actor = "scheduler", JobId by = kNoJob);
  void start(JobRecord& job, GangPlacement placement, Text why);
  void start(JobRecord& job, GangPlacement placement, Text why, Seconds at);
  Status takeRestored(Transaction& tx, const JobRecord& job, const RestoredTask& task);
  void stop(JobRecord& job);  // releases GPUs, quota and fair-share accounting
  Status finish(JobId id, EventKind kind, JobState to, Text reason);
  static size_t gpusNeeded(const Job& job);  // whole GPUs over all tasks
  // A pin of `gpus` GPUs that cannot hold the job (no pin is fine: it means anywhere).
  static bool pinTooSmall(const Job& job, size_t gpus);
  [[nodiscard]] std::string classNames() const;  // "production, batch, ..." for refusals
  void evict(JobRecord& victim, const JobRecord& by, const Victim& cost, Text why);
  void accrueUsage(Seconds dt);
  // `why` is the job's verdict this cycle, quoted in the reason it starts with.
  bool tryPreempt(CycleContext& ctx, JobRecord& job, const Text& why, CycleStats& stats);
  void numberQueue(const std::vector<size_t>& order, const std::vector<size_t>& startedNow);
  bool tryReserve(const CycleContext& ctx, JobRecord& job, CycleStats& stats);
  [[nodiscard]] std::vector<size_t> orderedPending(const CycleContext& ctx) const;
  // The same order from the queue index, when the policy's keys allow one (else a full sort).
  [[nodiscard]] std::vector<size_t> cycleOrder(const CycleContext& ctx) const;
  void configureQueueIndex();

  struct Journal;
  // What a WhatIf must put back. Copying an engine never copies a what-if in progress.
  class JournalSlot {
   public:
    JournalSlot();
    JournalSlot(const JournalSlot&);
    JournalSlot& operator=(const JournalSlot&);
    JournalSlot(JournalSlot&&) noexcept;
    JournalSlot& operator=(JournalSlot&&) noexcept;
    ~JournalSlot();
    std::unique_ptr<Journal> journal;
    // The last what-if's journal, emptied but with its buffers: the next one copies the queue
    // index (megabytes at 150,000 jobs) into memory already mapped instead of faulting it in.
    std::unique_ptr<Journal> spare;
  };
  // Saves record `index` before its first change inside a what-if (a no-op outside one).
  // Also files the job again in the queue index: every change to a record passes here.
  void touch(size_t index) {
    queueIndex_.mark(static_cast<uint32_t>(index));
    if (journal_.journal) [[unlikely]]
      saveRecord(index);
  }
  void touch(const JobRecord& r) { touch(static_cast<size_t>(&r - jobs_.data())); }
  void saveRecord(size_t index);
  // Caches what a running job's placement releases and charges (JobRecord::placed*).
  void keepPlacement(JobRecord& job) const;
  void beginWhatIf();
  void rollBackWhatIf();
  void keepWhatIf();

  // Mutable: what-ifs on a const Engine (explanations, plugins) change it only inside a
  // Transaction they always discard. Not for concurrent use; fork the Engine for another thread.
  mutable ClusterState state_;
  std::vector<NodeHolds> nodeHolds_;  // per node; sized on first use
  Policy policy_;
  PluginSet plugins_;
  QuotaBook quotas_;
  FairShare fairShare_;
  ReservationBook reservations_;
  std::vector<PriorityClass> classes_;
  JobRecords jobs_;
  std::vector<uint32_t> running_;     // indexes into jobs_ of running jobs
  std::vector<int32_t> positions_;    // per jobs_ index: queue position after the last cycle
  std::vector<uint32_t> positioned_;  // jobs_ indexes given a position by the last cycle
  // jobs_ indexes of pending, admitted and running jobs (finished ones are dropped lazily by
  // the next queue ordering, hence mutable).
  mutable std::vector<uint32_t> active_;
  std::vector<uint32_t> withEta_;  // jobs_ indexes given an ETA by the last cycle
  mutable QueueIndex queueIndex_;  // the pending queue kept in order between cycles (a cache)
  bool queueIndexed_ = false;      // the policy's queue keys allow the index
  uint64_t activeSweep_ = 0;
  std::set<RunningEnd> runningEnds_;  // running jobs by expected end
  std::unordered_map<std::string, uint32_t> shapes_;
  mutable FeasibilityCheck feasibility_;  // submit refuses what can never run (a verdict cache)
  std::unordered_map<JobId, size_t> index_;
  std::vector<ResourceUse> teamUse_;
  std::vector<Event> events_;  // the log from number eventBase_ on
  uint64_t eventBase_ = 0;     // events forgotten
  size_t finished_ = 0;        // finished records in jobs_
  std::vector<Job> future_;    // submitted with a submit time still ahead of the clock
  std::array<std::vector<int32_t>, 6> unitIndex_;  // per TopologyLevel: per node, dense unit
  size_t unitCount_ = 0;
  std::array<bool, 6> nests_{};  // per TopologyLevel
  ResourceUse capacity_;
  EngineStats stats_;
  Seconds now_ = 0;
  Seconds lastPlan_ = -1;  // when backfill last planned reservations (-1 = never)
  int64_t nextRank_ = 0;
  JournalSlot journal_;
  // Backfill's base of the cycle running now (null outside runCycle): starts and stops are
  // mirrored into it.
  BackfillBase* cycleBase_ = nullptr;
};

}  // namespace tessera
