// Backfill with reservations (Slurm's sched/backfill, kept small): a blocked job's earliest start
// is found on a time-indexed free-capacity map - running jobs are released in the order of their
// expected ends, grouped to the policy's resolution and within its window, and the job is tried
// after each group. The GPUs it would take then become a reservation; later jobs may use them only
// if they end before it starts.
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "scheduler/backfill_base.h"
#include "scheduler/engine.h"
#include "scheduler/gpu_holders.h"
#include "scheduler/gpu_room.h"
#include "scheduler/node_filter.h"

namespace tessera {

namespace {

// Whether a failed trial could come out differently at a later step. A placement failure stands
// until a released job frees a node the job may use, or a reservation blocking the job's run
// ends (a later start only overlaps more of the others); a quota refusal until any job's end
// gives quota back.
class TrialWorth {
 public:
  TrialWorth(const Cluster& cluster, const ReservationBook* book, const Job& job)
      : cluster_(cluster), job_(job) {
    if (!book) return;
    for (const Reservation& r : book->all())
      if (!r.exempts(job.team, job.id)) untils_.push_back(r.until);
    std::sort(untils_.begin(), untils_.end());
  }

  void released(const std::vector<NodeId>& nodes) {
    changed_ = changed_ || quotaBlocked_ || std::any_of(nodes.begin(), nodes.end(), [&](NodeId n) {
                 return nodeEligible(job_, cluster_.node(n));
               });
  }

  [[nodiscard]] bool worthTrying(Seconds at) {
    // A hold that ended after the last trial and by `at` may have blocked it.
    const auto ended = std::upper_bound(untils_.begin(), untils_.end(), at);
    if (ended != untils_.begin() && *(ended - 1) > lastTrial_) changed_ = true;
    return changed_;
  }

  void failed(Seconds at, bool byQuota) {
    lastTrial_ = at;
    changed_ = false;
    quotaBlocked_ = byQuota;
  }

 private:
  const Cluster& cluster_;
  const Job& job_;
  std::vector<Seconds> untils_;
  Seconds lastTrial_ = -1;
  bool changed_ = true;
  bool quotaBlocked_ = false;
};

class ReservationBackfill final : public BackfillPlugin {
 public:
  std::optional<BackfillReservation> reserve(const Engine& engine, const CycleContext& ctx,
                                             const JobRecord& job) const override {
    const BackfillPolicy& policy = engine.policy().backfill;
    // Within a cycle the trials run on its base, where the jobs already overdue are released
    // once for every reservation (backfill_base.h); an explanation's plan releases them itself.
    BackfillBase* base = ctx.backfillBase;
    if (base) base->ensure(engine);
    ClusterState& scratch = base ? base->state() : engine.scratch();
    Transaction what(scratch);
    // Without any quota a charge changes nothing, so the cycle's book serves as it is. With
    // quotas, released jobs are charged back only when a trial is about to read the book, in the
    // order they were released (the same sums, but no work for steps that try nothing).
    const bool quotasInUse = ctx.quotas->anyQuota();
    std::optional<QuotaBook> quotas;
    CycleContext trialCtx = ctx;
    trialCtx.state = &scratch;
    if (quotasInUse) {
      quotas.emplace(base ? base->quotas() : *ctx.quotas);
      trialCtx.quotas = &*quotas;
    }
    size_t charged = 0;
    std::vector<const JobRecord*> released;
    const Seconds horizon = ctx.now + policy.window;
    GpuRoom room(engine, scratch, ctx.reservations, job);
    TrialWorth worth(engine.state().cluster(), ctx.reservations, job.job);
    // The running jobs by expected end, read as the steps go: the search usually stops long
    // before the window does. With a base, the jobs already overdue (thousands, in a long-lived
    // queue) are free in it: they make one step at `now`, taken without walking them.
    const auto& ends = engine.runningByEnd();
    auto within = [&](auto it) {
      return it != ends.end() && it->end < kForever && it->end <= ctx.now + policy.window;
    };
    auto it = ends.begin();
    bool overdueStep = false;
    if (base) {
      it = ends.upper_bound({base->through(), std::numeric_limits<JobId>::max(), 0});
      overdueStep = it != ends.begin();
    }
    for (; overdueStep || within(it); overdueStep = false) {
      // Ends grouped to the resolution step: one trial per step, not per job.
      const Seconds offset = overdueStep ? 0 : std::max<Seconds>(0, it->end - ctx.now);
      const Seconds at =
          ctx.now + (offset + policy.resolution - 1) / policy.resolution * policy.resolution;
      if (at > horizon) break;
      const size_t lastGroup = released.size();
      for (; !overdueStep && within(it) && it->end <= at; ++it) {
        const JobRecord* r = &engine.jobAt(it->index);
        released.push_back(r);
        const auto& nodes = r->placedNodes;
        what.releaseJob(r->job.id, nodes, r->placedGpus);
        room.released(nodes);
        worth.released(nodes);
      }
      room.advanceTo(at);
      if (!room.mayFit() || !worth.worthTrying(at)) continue;
      if (quotasInUse) {
        for (; charged < released.size(); ++charged) {
          const JobRecord* r = released[charged];
          quotas->charge(engine.state(), r->team, r->placedCharge, -1);
        }
        // Until enough of its team's work has ended, no placement could be permitted.
        if (!engine.permitAnywhere(trialCtx, job).ok()) continue;
      }
      const size_t mark = what.size();
      GangResult placed = engine.tryPlace(what, job, trialCtx, at);
      const bool ok = placed.placement && engine.permit(trialCtx, job, *placed.placement).ok();
      what.rollbackTo(mark);
      if (ok) return reservation(engine, job, at, *placed.placement, released, lastGroup, ctx.now);
      worth.failed(at, placed.placement.has_value());
    }
    return std::nullopt;
  }

 private:
  // The running jobs a reservation waits for: those holding GPUs it will take and expected to
  // end by its start, and the jobs of the step that made room (`released[lastGroup..]`: their end
  // frees quota, or lets a gang's unit fill, even when the job will not take their GPUs). A
  // reservation at `now` made room by the jobs already overdue; of those only the holders count,
  // or an operator would read thousands of ids.
  static BackfillReservation reservation(const Engine& engine, const JobRecord& job, Seconds at,
                                         const GangPlacement& p,
                                         const std::vector<const JobRecord*>& released,
                                         size_t lastGroup, Seconds now) {
    BackfillReservation r;
    r.job = job.job.id;
    r.start = at;
    r.end = job.endIfStartedAt(at);
    std::set<GpuId> gpus;
    std::map<NodeId, Reservation::HostHold> host;
    for (const auto& t : p.tasks) {
      gpus.insert(t.gpus.begin(), t.gpus.end());
      Reservation::HostHold& h = host[t.node];
      h.node = t.node;
      h.cpus += job.job.cpusPerTask;
      h.memoryMiB += job.job.memoryMiBPerTask;
    }
    for (const auto& [node, h] : host)
      if (h.cpus > 0 || h.memoryMiB > 0) r.host.push_back(h);
    r.gpus.assign(gpus.begin(), gpus.end());
    std::set<Engine::RunningEnd> waits;
    const auto wait = [&waits](const JobRecord& j) {
      waits.insert({j.expectedEnd(), j.job.id, 0});
    };
    for (GpuId g : gpus)
      forEachGpuHolder(engine.state().gpu(g), [&](JobId owner) {
        if (const JobRecord* j = engine.job(owner);
            j && j->runningSlot >= 0 && j->expectedEnd() <= at)
          wait(*j);
      });
    if (at > now)
      for (size_t k = lastGroup; k < released.size(); ++k) wait(*released[k]);
    for (const Engine::RunningEnd& w : waits) r.waitingFor.push_back(w.id);
    return r;
  }
};

}  // namespace

std::shared_ptr<const BackfillPlugin> makeReservationBackfill() {
  return std::make_shared<const ReservationBackfill>();
}

}  // namespace tessera
