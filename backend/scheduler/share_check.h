#pragma once
// Whether a time-sliced GPU takes one more share, without wording the refusal: the node filter,
// placement and scoring ask this for every GPU of every node they look at, and only the refusal
// an explanation or a failed take names is worded, by ClusterState::shareProblem.
#include "scheduler/cluster_state.h"

namespace tessera {

enum class ShareRefusal {
  None,
  ReservedJobId,
  NotTimeSliced,
  NodeNotUp,
  SizeOutOfRange,
  NoReplicaLeft,
  NoMilliLeft,
  NoMemoryLeft,
  AlreadyHoldsOne,
};

[[nodiscard]] ShareRefusal checkShare(const ClusterState& state, GpuId id, JobId job, int milli,
                                      int64_t vramMiB);

[[nodiscard]] inline bool takesShare(const ClusterState& state, GpuId id, JobId job, int milli,
                                     int64_t vramMiB) {
  return checkShare(state, id, job, milli, vramMiB) == ShareRefusal::None;
}

}  // namespace tessera
