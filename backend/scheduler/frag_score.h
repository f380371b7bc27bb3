#pragma once
// The engine's fragmentation score plugins (`fgd`, `fgd-reach`): the engine's state and jobs seen
// through scheduler/fragmentation.h, the same functions the openb experiment calls.
#include <memory>

#include "scheduler/fragmentation.h"
#include "scheduler/plugin.h"

namespace tessera {

// A node of the engine as the fragmentation model sees it: free CPU (milli) and memory, and per
// GPU the free milli: an exclusive GPU 1000 when free else 0, a time-sliced one 1000 minus its
// shares, a MIG GPU 0 (MIG has its own measure). CPU or memory a node does not limit count as
// plenty. Model bit 0; a pod's or class's access to the node is decided by fragAccess.
frag::NodeView fragView(const ClusterState& state, NodeId id);
// One task of `job` as a pod; `models` is kAnyModel when the job may use the node's GPUs, else 0.
frag::PodDemand fragPod(const GpuRequest& request, int cpus, int64_t memoryMiB, bool access);
// Whether a job (or demand shape) with this model constraint may use node `id`'s GPUs.
bool fragAccess(const ClusterState& state, NodeId id, const ModelConstraint& model);
// The request mix as typical pods for node `id` (access resolved against its model).
std::vector<frag::TypicalPod> fragMix(const ClusterState& state, NodeId id,
                                      const std::vector<DemandShape>& mix);

std::shared_ptr<const ScorePlugin> makeFragScore(const frag::Measure& measure);

}  // namespace tessera
