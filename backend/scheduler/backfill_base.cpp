#include "scheduler/backfill_base.h"

#include "scheduler/engine.h"
#include "scheduler/transaction.h"

namespace tessera {

bool BackfillBase::releases(const JobRecord& j) const {
  return j.expectedEnd() <= through_;
}

void BackfillBase::ensure(const Engine& engine) {
  if (state_) return;
  state_ = engine.state();
  quotas_ = engine.quotas();
  Transaction tx(*state_);
  for (const Engine::RunningEnd& e : engine.runningByEnd()) {
    if (e.end > through_) break;
    const JobRecord& r = engine.jobAt(e.index);
    tx.releaseJob(r.job.id, r.placedNodes, r.placedGpus);
    quotas_.charge(*state_, r.team, r.placedCharge, -1);
  }
  tx.commit();
}

void BackfillBase::started(Engine& engine, const JobRecord& job) {
  if (!state_ || releases(job)) return;
  Transaction tx(*state_);
  for (const auto& t : job.placement->tasks)
    if (!engine.takeRestored(tx, job, {t.node, t.gpus, t.migStart})) {
      // Cannot happen while the base mirrors every change; if it does, plan from scratch.
      tx.discard();
      state_.reset();
      ++lost_;
      return;
    }
  tx.commit();
  quotas_.charge(*state_, job.team, job.placedCharge, +1);
}

void BackfillBase::stopped(const JobRecord& job) {
  if (!state_ || releases(job)) return;
  Transaction tx(*state_);
  tx.releaseJob(job.job.id, job.placedNodes, job.placedGpus);
  tx.commit();
  quotas_.charge(*state_, job.team, job.placedCharge, -1);
}

}  // namespace tessera
