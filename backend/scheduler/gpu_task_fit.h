#pragma once
// How many tasks of a job that asks for less than a GPU one GPU could take now, by the GPU's own
// occupancy alone - no gate, no host resources: a time-slice share or an MPS client (one task per
// GPU at most), or MIG instances of the job's profile (idle ones, plus new ones where layouts
// are not fixed). The node filter sums these per node; backfill's room (gpu_room.h) sums them as
// its necessary condition before a trial placement.
#include <algorithm>

#include "scheduler/cluster_state.h"
#include "workload/job.h"

namespace tessera {

class SmallTaskFit {
 public:
  explicit SmallTaskFit(const Job& job);
  // The job asks for a share, an MPS client or a MIG instance (other kinds fit nowhere here).
  [[nodiscard]] bool applies() const { return kind_ != GpuRequest::Kind::None; }
  [[nodiscard]] int tasksOn(const ClusterState& state, GpuId g) const;
  // The tasks node `n` could take on the GPUs `allowed(g)` lets it use: the node filter (its
  // gate) and backfill's room (GPUs no reservation holds) count alike. MPS GPUs with
  // node_sharing: one take a job's clients only on the node's serving GPUs (the others refuse,
  // so count none); while none serves they take one in all: the job's first client makes its
  // GPU the serving one, and a job has one client per GPU. Exact on a node whose MPS GPUs share
  // one value (as Slurm has it), an upper bound otherwise.
  template <typename Allowed>
  [[nodiscard]] int tasksOnNode(const ClusterState& state, const Node& n, Allowed&& allowed) const {
    int tasks = 0;
    int oneTasks = 0;  // on MPS GPUs under node_sharing: one
    bool serving = false;
    for (int i = 0; i < n.gpuCount(); ++i) {
      const GpuId g = n.firstGpu + static_cast<GpuId>(i);
      const bool one = underOneGpuRule(state, g);
      if (one && !state.gpu(g).mpsClients.empty()) serving = true;
      if (!allowed(g)) continue;
      (one ? oneTasks : tasks) += tasksOn(state, g);
    }
    return tasks + (serving ? oneTasks : std::min(oneTasks, 1));
  }

 private:
  [[nodiscard]] bool underOneGpuRule(const ClusterState& state, GpuId g) const;
  [[nodiscard]] int migProfileOf(const GpuModel& model) const;

  const Job& job_;
  GpuRequest::Kind kind_ = GpuRequest::Kind::None;
  MpsAsk ask_;
  // The profile's index in the last MIG model asked about: a search asks per GPU, and looking a
  // profile up by name each time cost more than counting the instances.
  mutable const GpuModel* migModel_ = nullptr;
  mutable int migProfile_ = -1;
};

}  // namespace tessera
