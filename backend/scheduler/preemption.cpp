// Checkpoint-aware preemption: when a job cannot be placed, find the cheapest set of whole gangs
// whose eviction lets it start now - lowest priority first, then least work lost since their last
// checkpoint, then fewest GPU-hours lost - simulated in a transaction before anything is evicted,
// and then pruned of victims that turned out not to be needed (kube-scheduler's "reprieve").
// Borrowed GPUs are reclaimed for a team that is below its guarantee regardless of priority.
#include <algorithm>

#include "scheduler/engine.h"
#include "scheduler/gpu_room.h"

namespace tessera {

namespace {

// Could the preemptor run on the victim's nodes at all (pool and GPU model)?
bool compatible(const ClusterState& state, const Job& job, const GangPlacement& p) {
  return std::any_of(p.tasks.begin(), p.tasks.end(), [&](const TaskAssignment& t) {
    return nodeEligible(job, state.cluster().node(t.node));
  });
}

// The preemptor's demand charged as if it ran on the victim's first GPU (its model and pool).
QuotaCharge asIf(const JobRecord& preemptor, const GangPlacement& p) {
  QuotaCharge c;
  if (!p.tasks.empty() && !p.tasks.front().gpus.empty())
    c.gpus.emplace_back(p.tasks.front().gpus.front(), preemptor.job.gpuDemand());
  return c;
}

struct Candidate {
  Victim v;
  int priority = 0;
  Seconds started = 0;
};

// Checked against the quotas with the victims chosen so far already taken off: a priority victim
// may not take its team below its guarantee (unless the policy allows it), and a reclaim victim's
// team must still be borrowing - reclaim takes back what was lent, not more. A gang running partly
// on borrowed GPUs is reclaimed whole: its borrowed part cannot be taken alone.
bool stillEligible(const Engine& engine, const QuotaBook& quotas, const JobRecord& victim,
                   const Victim& v, bool floorAlways) {
  if (!quotas.anyQuota()) return true;
  const ClusterState& state = engine.state();
  if (v.reclaimed) {
    const GpuId g = victim.placement->tasks.front().gpus.front();
    return quotas.borrowing(victim.team, state.cluster().modelOf(g).id,
                            state.cluster().node(state.cluster().gpu(g).node).pool);
  }
  return !floorAlways || quotas.staysAboveGuarantee(state, victim.job.team,
                                                    engine.chargeOf(victim, *victim.placement));
}

class CheckpointAwarePreemption final : public PreemptionPlugin {
 public:
  std::optional<PreemptionPlan> plan(const Engine& engine, const CycleContext& ctx,
                                     const JobRecord& job) const override {
    const auto candidates = preemptionCandidates(engine, ctx, job);
    if (candidates.empty()) return std::nullopt;
    std::vector<Victim> chosen;
    std::optional<GangPlacement> placement;
    {
      Transaction what(engine.scratch());
      QuotaBook quotas = *ctx.quotas;
      CycleContext c = ctx;
      c.quotas = &quotas;
      const bool floorAlways = !engine.policy().preemption.withinGuarantee;
      // Free GPUs per unit bound what a trial can find: most victim sets are too small for the
      // gang, and a trial costs a pass over every node.
      GpuRoom room(engine, nullptr, job);
      for (const Victim& v : candidates) {
        // The guarantee floor holds for the set, not one victim at a time: earlier victims of
        // the same team are already taken off `quotas`.
        const JobRecord* victim = engine.job(v.job);
        if (!stillEligible(engine, quotas, *victim, v, floorAlways)) continue;
        room.released(release(engine, what, quotas, v.job));
        chosen.push_back(v);
        room.advanceTo(ctx.now);
        if (!room.mayFit()) continue;
        const size_t mark = what.size();
        GangResult r = engine.tryPlace(what, job, c, ctx.now);
        const bool ok = r.placement && engine.permit(c, job, *r.placement).ok();
        what.rollbackTo(mark);
        if (ok) {
          placement = std::move(r.placement);
          break;
        }
      }
    }
    if (!placement) return std::nullopt;
    // Reprieve: from the most expensive victim down, keep every one the preemptor does not need.
    for (size_t i = chosen.size(); i-- > 0 && chosen.size() > 1;) {
      std::vector<Victim> trial = chosen;
      trial.erase(trial.begin() + static_cast<std::ptrdiff_t>(i));
      if (auto p = placeWithout(engine, ctx, job, trial)) {
        chosen = std::move(trial);
        placement = std::move(p);
      }
    }
    return PreemptionPlan{chosen, *placement};
  }

 private:
  // Returns the nodes the victim held.
  static std::vector<NodeId> release(const Engine& engine, Transaction& what, QuotaBook& quotas,
                                     JobId id) {
    const JobRecord* v = engine.job(id);
    quotas.charge(engine.state(), v->team, v->placedCharge, -1);
    what.releaseJob(id, v->placedNodes, v->placedGpus);
    return v->placedNodes;
  }

  static std::optional<GangPlacement> placeWithout(const Engine& engine, const CycleContext& ctx,
                                                   const JobRecord& job,
                                                   const std::vector<Victim>& victims) {
    Transaction what(engine.scratch());
    QuotaBook quotas = *ctx.quotas;
    CycleContext c = ctx;
    c.quotas = &quotas;
    for (const Victim& v : victims) release(engine, what, quotas, v.job);
    GpuRoom room(engine, nullptr, job);
    room.advanceTo(ctx.now);
    if (!room.mayFit()) return std::nullopt;
    GangResult r = engine.tryPlace(what, job, c, ctx.now);
    if (r.placement && engine.permit(c, job, *r.placement).ok()) return r.placement;
    return std::nullopt;
  }
};

}  // namespace

std::vector<Victim> preemptionCandidates(const Engine& engine, const CycleContext& ctx,
                                         const JobRecord& job) {
  const PreemptionPolicy& policy = engine.policy().preemption;
  const ClusterState& state = engine.state();
  const QuotaBook& quotas = *ctx.quotas;
  std::vector<Candidate> out;
  const bool quotasInUse = quotas.anyQuota();
  const bool preemptorManaged = quotas.managed(job.team);
  for (const JobRecord* r : engine.running()) {
    if (r->job.id == job.job.id || !r->placement) continue;
    // Cheap tests first: most running jobs are neither lower-priority preemptible nor borrowing.
    // A job that is not preemptible is never a victim, whatever the reason.
    if (!r->job.preemptible) continue;
    const bool mayByPriority = r->job.priority < job.job.priority;
    const bool mayReclaim = policy.reclaimBorrowed && preemptorManaged && r->team != job.team;
    if (!mayByPriority && !mayReclaim) continue;
    if (!compatible(state, job.job, *r->placement)) continue;
    bool reclaim = false;
    if (mayReclaim) {
      const GpuId g = r->placement->tasks.front().gpus.front();
      const std::string& model = state.cluster().modelOf(g).id;
      const std::string& pool = state.cluster().node(state.cluster().gpu(g).node).pool;
      reclaim = quotas.borrowing(r->team, model, pool) &&
                quotas.withinGuarantee(state, job.job.team, asIf(job, *r->placement));
    }
    const bool byPriority =
        mayByPriority &&
        (policy.withinGuarantee || !quotasInUse ||
         quotas.staysAboveGuarantee(state, r->job.team, engine.chargeOf(*r, *r->placement)));
    if (!reclaim && !byPriority) continue;
    Candidate c;
    c.v.job = r->job.id;
    c.v.workLost = ctx.now - r->lastCheckpointAt(ctx.now);
    c.v.gpuHoursLost = double(c.v.workLost) * r->gpusHeld(state) / 3600.0;
    c.v.reclaimed = reclaim && !byPriority;
    c.priority = r->job.priority;
    c.started = r->startTime;
    out.push_back(c);
  }
  std::sort(out.begin(), out.end(), [](const Candidate& a, const Candidate& b) {
    if (a.priority != b.priority) return a.priority < b.priority;
    if (a.v.workLost != b.v.workLost) return a.v.workLost < b.v.workLost;
    if (a.v.gpuHoursLost != b.v.gpuHoursLost) return a.v.gpuHoursLost < b.v.gpuHoursLost;
    if (a.started != b.started) return a.started > b.started;
    return a.v.job < b.v.job;
  });
  std::vector<Victim> victims;
  victims.reserve(out.size());
  for (const auto& c : out) victims.push_back(c.v);
  return victims;
}

std::shared_ptr<const PreemptionPlugin> makeCheckpointAwarePreemption() {
  return std::make_shared<const CheckpointAwarePreemption>();
}

}  // namespace tessera
