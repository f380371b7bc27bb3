#pragma once
// Whether an MPS server of a GPU takes a client, without wording the refusal: placement searches
// ask this for every GPU of every node they look at (thousands of times a cycle at fleet size),
// and only the refusal an explanation names is worded, by ClusterState::mpsFit.
#include "scheduler/cluster_state.h"

namespace tessera {

// ClusterState::mpsFit's answer with `why` left empty.
[[nodiscard]] MpsFit checkMps(const ClusterState& state, GpuId id, const MpsAsk& ask,
                              int instanceStart = ClusterState::kAnyMpsServer);

}  // namespace tessera
