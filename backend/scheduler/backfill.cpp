// Backfill with reservations (Slurm's sched/backfill, kept small): a blocked job's earliest start
// is found on a time-indexed free-capacity map - running jobs are released in the order of their
// expected ends, grouped to the policy's resolution and within its window, and the job is tried
// after each group. The GPUs it would take then become a reservation; later jobs may use them only
// if they end before it starts.
#include <algorithm>
#include <set>

#include "scheduler/engine.h"

namespace tessera {

namespace {

class ReservationBackfill final : public BackfillPlugin {
 public:
  std::optional<BackfillReservation> reserve(const Engine& engine, const CycleContext& ctx,
                                             const JobRecord& job) const override {
    const BackfillPolicy& policy = engine.policy().backfill;
    std::vector<std::pair<Seconds, const JobRecord*>> ends;
    for (const JobRecord* r : engine.running())
      if (const Seconds end = r->expectedEnd(); end < kForever) ends.emplace_back(end, r);
    std::sort(ends.begin(), ends.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second->job.id < b.second->job.id;
    });
    Transaction what(engine.scratch());
    QuotaBook quotas = *ctx.quotas;
    CycleContext c = ctx;
    c.quotas = &quotas;
    std::vector<const JobRecord*> released;
    const Seconds horizon = ctx.now + policy.window;
    for (size_t i = 0; i < ends.size();) {
      // Ends grouped to the resolution step: one trial per step, not per job.
      const Seconds offset = std::max<Seconds>(0, ends[i].first - ctx.now);
      const Seconds at =
          ctx.now + (offset + policy.resolution - 1) / policy.resolution * policy.resolution;
      if (at > horizon) break;
      for (; i < ends.size() && ends[i].first <= at; ++i) {
        const JobRecord* r = ends[i].second;
        quotas.charge(engine.state(), r->job.team, engine.chargeOf(*r, *r->placement), -1);
        what.releaseJob(r->job.id);
        released.push_back(r);
      }
      const size_t mark = what.size();
      GangResult placed = engine.tryPlace(what, job, c, at);
      const bool ok = placed.placement && engine.permit(c, job, *placed.placement).ok();
      what.rollbackTo(mark);
      if (ok) return reservation(job, at, *placed.placement, released);
    }
    return std::nullopt;
  }

 private:
  static BackfillReservation reservation(const JobRecord& job, Seconds at, const GangPlacement& p,
                                         const std::vector<const JobRecord*>& released) {
    BackfillReservation r;
    r.job = job.job.id;
    r.start = at;
    r.end = job.endIfStartedAt(at);
    std::set<GpuId> gpus;
    for (const auto& t : p.tasks) gpus.insert(t.gpus.begin(), t.gpus.end());
    r.gpus.assign(gpus.begin(), gpus.end());
    // The running jobs it waits for: those holding GPUs it will take.
    for (const JobRecord* j : released) {
      bool holds = false;
      for (const auto& t : j->placement->tasks)
        for (GpuId g : t.gpus) holds = holds || gpus.count(g);
      if (holds) r.waitingFor.push_back(j->job.id);
    }
    return r;
  }
};

}  // namespace

std::shared_ptr<const BackfillPlugin> makeReservationBackfill() {
  return std::make_shared<const ReservationBackfill>();
}

}  // namespace tessera
