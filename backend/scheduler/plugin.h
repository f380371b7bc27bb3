#pragma once
// The engine's typed extension points, after the kube-scheduler framework: queue order,
// admission, filter, score, permit, preemption and backfill. A plugin answers with a
// PluginStatus that separates "does not fit now" (Unschedulable), "will never fit as asked"
// (Unresolvable) and "broken" (Error). Plugins are stateless; what one cycle knows lives in
// the CycleContext the engine builds at the start of the cycle.
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/text.h"
#include "scheduler/gang_placement.h"
#include "scheduler/quota.h"
#include "scheduler/reservation.h"
#include "workload/job.h"

namespace tessera {

class BackfillBase;
struct JobRecord;
struct Policy;
class FairShare;

enum class PluginCode : uint8_t { Success, Unschedulable, Unresolvable, Error };
const char* pluginCodeName(PluginCode c);

struct PluginStatus {
  PluginCode code = PluginCode::Success;
  Text reason;         // the operator's words; empty on success
  std::string plugin;  // who said it

  [[nodiscard]] bool ok() const { return code == PluginCode::Success; }
  static PluginStatus success() { return {}; }
  static PluginStatus unschedulable(Text why) {
    return {PluginCode::Unschedulable, std::move(why), {}};
  }
  static PluginStatus unresolvable(Text why) {
    return {PluginCode::Unresolvable, std::move(why), {}};
  }
  static PluginStatus error(Text why) { return {PluginCode::Error, std::move(why), {}}; }
};

// One task request and how often it occurs among pending and running work: the "distribution of
// arriving requests" the fragmentation score (FGD) measures against.
struct DemandShape {
  GpuRequest request;
  int cpus = 0;           // per task
  ModelConstraint model;  // the GPUs it may use
  double weight = 0;
};

// What every plugin may read during one cycle. Pointers, not copies: the context lives on the
// cycle's stack and the engine outlives it.
struct CycleContext {
  const ClusterState* state = nullptr;
  BackfillBase* backfillBase = nullptr;  // within a cycle: where backfill plans from
  const QuotaBook* quotas = nullptr;
  const FairShare* fairShare = nullptr;
  const ReservationBook* reservations = nullptr;
  const Policy* policy = nullptr;
  Seconds now = 0;
  std::vector<double> fairShareFactor;  // per team index: 1 = used nothing, -> 0 = far over share
  std::vector<double> dominantShare;    // per team index: DRF share / weight
  std::vector<DemandShape> demand;      // request mix for FGD
  std::vector<GpuId> gpuKinds;          // one GPU of each distinct (GPU model, pool) pair
};

class QueueOrderPlugin {
 public:
  // What a key depends on: the job's own fields (they change only through the engine), its
  // team's standing (recomputed each cycle), or anything else. Keys of the first two kinds let
  // the engine keep the queue in order between cycles instead of sorting it each time.
  enum class Scope : uint8_t { Job, Team, Cycle };
  virtual ~QueueOrderPlugin() = default;
  [[nodiscard]] virtual Scope scope() const { return Scope::Cycle; }
  // The job's place in this plugin's order: a lower key goes first; equal keys leave the decision
  // to the next plugin. Keys (not pairwise comparisons) let a cycle sort 150,000 jobs quickly.
  [[nodiscard]] virtual double key(const CycleContext& ctx, const JobRecord& job) const = 0;
  // < 0: a goes first, > 0: b goes first, 0: this plugin cannot tell.
  [[nodiscard]] int compare(const CycleContext& ctx, const JobRecord& a, const JobRecord& b) const {
    const double ka = key(ctx, a), kb = key(ctx, b);
    return ka < kb ? -1 : (kb < ka ? 1 : 0);
  }
};

class AdmissionPlugin {
 public:
  virtual ~AdmissionPlugin() = default;
  // May the job be considered for placement at all this cycle (hold, quota headroom)?
  [[nodiscard]] virtual PluginStatus admit(const CycleContext& ctx, const JobRecord& job) const = 0;
};

// Contributes GPUs the job may not take (the gate) and can reject a job outright (a pin naming a
// GPU that does not exist is Error).
class FilterPlugin {
 public:
  virtual ~FilterPlugin() = default;
  [[nodiscard]] virtual PluginStatus check(const CycleContext&, const JobRecord&) const {
    return PluginStatus::success();
  }
  // Whether it can keep this job off any GPU at all now (no reservations, no pin: no); inactive
  // filters are skipped, so placement runs at full speed.
  [[nodiscard]] virtual bool active(const CycleContext&, const JobRecord&) const { return true; }
  [[nodiscard]] virtual bool touches(const CycleContext& ctx, const JobRecord& job, Seconds start,
                                     NodeId n) const = 0;
  [[nodiscard]] virtual bool usable(const CycleContext& ctx, const JobRecord& job, Seconds start,
                                    GpuId g) const = 0;
  [[nodiscard]] virtual NodeReject rejectReason() const = 0;
  // Host CPUs and memory on node n the job may not use (backfill holds).
  [[nodiscard]] virtual std::pair<int, int64_t> hostHeld(const CycleContext&, const JobRecord&,
                                                         Seconds, NodeId) const {
    return {0, 0};
  }
};

// Raw score of a candidate unit (higher is better); the engine normalizes each plugin's scores to
// 0..100 across the candidates and sums them with the policy's weights.
class ScorePlugin {
 public:
  virtual ~ScorePlugin() = default;
  [[nodiscard]] virtual double score(const CycleContext& ctx, const Job& job,
                                     const UnitView& unit) const = 0;
};

// Last word on a tentative placement, inside the transaction (quota against the GPUs chosen).
class PermitPlugin {
 public:
  virtual ~PermitPlugin() = default;
  [[nodiscard]] virtual PluginStatus permit(const CycleContext& ctx, const JobRecord& job,
                                            const GangPlacement& placement) const = 0;
  // A refusal that holds wherever the job would land, so the cycle need not place it first
  // (kube-scheduler's PreFilter). Success means "place it and ask permit()".
  [[nodiscard]] virtual PluginStatus refusalAnywhere(const CycleContext&, const JobRecord&) const {
    return PluginStatus::success();
  }
};

struct Victim {
  JobId job = kNoJob;
  Seconds workLost = 0;     // seconds of progress since its last checkpoint
  double gpuHoursLost = 0;  // workLost x the GPUs it holds
  bool reclaimed = false;   // evicted to give borrowed GPUs back, not by priority
};

struct PreemptionPlan {
  std::vector<Victim> victims;
  GangPlacement placement;  // where the preemptor goes once they are gone
};

class Engine;

class PreemptionPlugin {
 public:
  virtual ~PreemptionPlugin() = default;
  // The cheapest victim set that lets `job` start now, simulated in a transaction that is
  // discarded; nullopt when none exists.
  [[nodiscard]] virtual std::optional<PreemptionPlan> plan(const Engine& engine,
                                                           const CycleContext& ctx,
                                                           const JobRecord& job) const = 0;
};

// The candidates a preemptor may evict and in which order (cheapest first); shared with
// explanations ("would start now by preempting ...").
std::vector<Victim> preemptionCandidates(const Engine& engine, const CycleContext& ctx,
                                         const JobRecord& job);

// A blocked job's earliest start on the time-indexed free-capacity map, and the GPUs it will use.
struct BackfillReservation {
  JobId job = kNoJob;
  Seconds start = 0;
  Seconds end = 0;
  std::vector<GpuId> gpus;
  std::vector<JobId> waitingFor;            // running jobs whose end it needs
  std::vector<Reservation::HostHold> host;  // CPUs and memory it needs per node
};

class BackfillPlugin {
 public:
  virtual ~BackfillPlugin() = default;
  [[nodiscard]] virtual std::optional<BackfillReservation> reserve(const Engine& engine,
                                                                   const CycleContext& ctx,
                                                                   const JobRecord& job) const = 0;
};

// The built-in search plugins (explanations use the preemption one even when a policy does not).
// The request mix FGD measures against: every task shape of the jobs added, weighted by its
// task count. The engine's cycle builds it over the active jobs, the simulator's metrics over
// pending and running ones.
class DemandMix {
 public:
  void add(const Job& job);
  [[nodiscard]] std::vector<DemandShape> shapes() const;

 private:
  // (kind, GPUs, MIG profile, milli, CPUs, models, minimum GPU memory) -> tasks
  std::map<std::tuple<int, int, std::string, int, int, std::vector<std::string>, int64_t>, double>
      counts_;
  double total_ = 0;
};

// FGD's fragmentation of one node against a request mix, in GPUs (scheduler/fragmentation.h on
// the node's whole and time-sliced GPUs, plus the free MIG slices no instance of a MIG shape could
// use). The simulator's metrics use it; the fgd score plugin scores moves with the same functions.
double nodeFragmentation(const ClusterState& state, NodeId id, const std::vector<DemandShape>& mix);
std::shared_ptr<const PreemptionPlugin> makeCheckpointAwarePreemption();
std::shared_ptr<const BackfillPlugin> makeReservationBackfill();

// Plugins by name (the built-ins; a policy may only name these).
struct PluginSet {
  std::vector<std::shared_ptr<const QueueOrderPlugin>> queueOrder;
  std::vector<std::pair<std::string, std::shared_ptr<const AdmissionPlugin>>> admission;
  std::vector<std::shared_ptr<const FilterPlugin>> filter;
  std::vector<std::pair<std::shared_ptr<const ScorePlugin>, double>> score;
  std::vector<std::pair<std::string, std::shared_ptr<const PermitPlugin>>> permit;
  std::shared_ptr<const PreemptionPlugin> preemption;  // nullptr = none
  std::shared_ptr<const BackfillPlugin> backfill;      // nullptr = none
};

class PluginRegistry {
 public:
  static const PluginRegistry& builtin();
  [[nodiscard]] std::vector<std::string> names(std::string_view point) const;
  [[nodiscard]] bool has(std::string_view point, std::string_view name) const;
  // Instantiates the policy's plugins; fails naming the first unknown one.
  [[nodiscard]] Expected<PluginSet> instantiate(const Policy& policy) const;
};

}  // namespace tessera
