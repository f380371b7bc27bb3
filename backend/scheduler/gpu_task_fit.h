#pragma once
// Whether one GPU could take one task of a job that asks for less than a GPU (a time-slice share
// or an MPS client: one task per GPU at most), by the GPU's own occupancy alone - no gate, no
// host resources. The node filter counts these GPUs per node; backfill's room (gpu_room.h)
// counts them as its necessary condition before a trial placement.
#include "scheduler/cluster_state.h"
#include "workload/job.h"

namespace tessera {

class SmallTaskFit {
 public:
  explicit SmallTaskFit(const Job& job);
  // The job asks for a share or an MPS client (other kinds fit nowhere here).
  [[nodiscard]] bool applies() const { return kind_ != GpuRequest::Kind::None; }
  [[nodiscard]] bool fits(const ClusterState& state, GpuId g) const;

 private:
  const Job& job_;
  GpuRequest::Kind kind_ = GpuRequest::Kind::None;
  MpsAsk ask_;
};

}  // namespace tessera
