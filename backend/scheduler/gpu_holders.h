#pragma once
// Every job holding part of a GPU, in one place: its whole-GPU owner, the owners of its MIG
// instances, its time-slice shares and its MPS clients. Backfill names the running jobs a
// reservation waits for from it; the invariant checker counts each job's GPUs with it.
#include "scheduler/cluster_state.h"

namespace tessera {

// Calls `visit(job)` once per holding: a job with two instances on the GPU is visited twice.
template <typename Visit>
void forEachGpuHolder(const GpuOccupancy& o, Visit&& visit) {
  if (o.wholeOwner != kNoJob) visit(o.wholeOwner);
  for (int i = 0; i < o.layout.size(); ++i)
    if (const JobId owner = o.instanceOwner[static_cast<size_t>(i)]; owner != kNoJob) visit(owner);
  for (const GpuShare& s : o.shares) visit(s.job);
  for (const MpsClient& c : o.mpsClients) visit(c.job);
}

}  // namespace tessera
