#pragma once
// Which nodes can host a task of a job, and why the others cannot: the per-node rejection counts
// behind "0/1250 nodes: 800 not enough free GPUs, 300 no 3g.40gb slot, 150 pool mismatch".
//
// Part of the scheduler engine issue (in progress).
#include <array>
#include <string>
#include <vector>

#include "core/text.h"
#include "scheduler/cluster_state.h"
#include "workload/job.h"

namespace tessera {

enum class NodeReject : uint8_t {
  NodeNotUp,
  PoolMismatch,
  GpuModelMismatch,   // not in the job's model list
  GpuMemoryTooSmall,  // below the job's minimum GPU memory
  NotEnoughFreeGpus,  // whole GPUs: fewer free than one task needs
  NoMigGpu,           // MIG: no GPU in MIG mode whose model has the profile
  NoMigSlot,          // MIG: no idle instance and no room to create one of the profile
  NoGpuShare,         // fraction: no time-sliced GPU with enough milli-GPU, VRAM and replicas left
  NoMpsGpu,           // MPS: no GPU of the node runs MPS
  NoMpsRoom,          // MPS: no MPS server takes the client (co-location, clients, threads, memory)
  NotEnoughCpu,       // the node's free CPUs are fewer than one task needs
  NotEnoughMemory,    // the node's free host memory is less than one task needs
  Reserved,           // the GPUs that would fit are reserved (maintenance, a team, a blocked job)
  NotPinned,          // an operator pinned the job elsewhere
  Count
};
const char* nodeRejectText(NodeReject r);

// The GPU model is one the job accepts: in its model list and with enough memory.
bool modelQualifies(const Job& job, const GpuModel& m);

struct NodeFilterResult {
  std::vector<std::pair<NodeId, int>> fits;  // node, and how many tasks of the job it can take now
  std::array<int, static_cast<size_t>(NodeReject::Count)> rejected{};
  int nodesChecked = 0;

  [[nodiscard]] int fittingNodes() const { return static_cast<int>(fits.size()); }
  // "2/62 nodes fit; 40 pool mismatch, 12 GPU model not allowed, 8 not enough free GPUs", largest
  // cause first (the Kubernetes "0/N nodes are available" shape operators know).
  [[nodiscard]] Text summary() const;
};

// GPUs one job may not take now, on top of occupancy: reservations, operator pins (the filter
// extension point). Nodes it does not touch are checked at full speed.
class GpuGate {
 public:
  virtual ~GpuGate() = default;
  [[nodiscard]] virtual bool touches(NodeId n) const = 0;
  [[nodiscard]] virtual bool usable(GpuId g) const = 0;
  // The reason a touched node with no usable GPU is rejected.
  [[nodiscard]] virtual NodeReject reason(NodeId n) const = 0;
  // Host CPUs and memory on a touched node the job may not use (held for another job).
  [[nodiscard]] virtual std::pair<int, int64_t> hostHeld(NodeId) const { return {0, 0}; }
};

// Runs every node of the cluster through the job's GPU-side constraints. The first failing
// check names the node's reason, in the order of NodeReject.
NodeFilterResult filterNodes(const ClusterState& state, const Job& job,
                             const GpuGate* gate = nullptr);

// Tasks of `job` that node `n` could take right now (0 when it cannot host one), and the reason
// when it is 0.
int tasksThatFit(const ClusterState& state, const Job& job, NodeId n, NodeReject& reason,
                 const GpuGate* gate = nullptr);

// What an MPS job asks of a server for each task.
MpsAsk mpsAsk(const Job& job);

// The job's static node constraints: the node's pool and GPU model (not its state or occupancy).
bool nodeEligible(const Job& job, const Node& n);

// Whether `g` is one the job may take (no gate = all).
inline bool gateAllows(const GpuGate* gate, GpuId g) {
  return !gate || gate->usable(g);
}

}  // namespace tessera
