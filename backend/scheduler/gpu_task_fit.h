#pragma once
// How many tasks of a job that asks for less than a GPU one GPU could take now, by the GPU's own
// occupancy alone - no gate, no host resources: a time-slice share or an MPS client (one task per
// GPU at most), or MIG instances of the job's profile (idle ones, plus new ones where layouts
// are not fixed). The node filter sums these per node; backfill's room (gpu_room.h) sums them as
// its necessary condition before a trial placement.
#include "scheduler/cluster_state.h"
#include "workload/job.h"

namespace tessera {

class SmallTaskFit {
 public:
  explicit SmallTaskFit(const Job& job);
  // The job asks for a share, an MPS client or a MIG instance (other kinds fit nowhere here).
  [[nodiscard]] bool applies() const { return kind_ != GpuRequest::Kind::None; }
  [[nodiscard]] int tasksOn(const ClusterState& state, GpuId g) const;

 private:
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
