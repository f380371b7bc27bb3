#pragma once
// Why a node is out of service, kept per owner. Each owner (an operator, a node failure, a GPU
// fault on one GPU, a MIG reconfiguration of one GPU, the executor that runs the jobs, the node's
// inventory lacking a GPU or reporting it faulty) adds and
// removes only its own hold, like Kubernetes taints and Slurm's state flags with their reason:
// overlapping causes never undo each other, and nobody compares reasons to find out whose a
// drain was. The node's state is derived from its holds.
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "core/ids.h"
#include "core/text.h"
#include "topology/cluster.h"

namespace tessera {

// Inventory: a GPU its node's agent no longer lists, or lists as faulty (fallen off the bus).
// Only the inventory lifts it, when a report shows the GPU healthy again: an operator's undrain
// vouches for what they can see, not for hardware the node itself says is gone, and telemetry
// or the executor's sync have their own holds.
enum class HoldOwner : uint8_t { Operator, Failure, GpuFault, MigReconfigure, Executor, Inventory };
// "operator", "failure", "gpu-fault", "mig-reconfigure", "executor", "inventory": as stored and
// sent.
const char* holdOwnerName(HoldOwner o);
std::optional<HoldOwner> holdOwnerFromName(std::string_view name);

struct NodeHold {
  HoldOwner owner = HoldOwner::Operator;
  // GPU faults, MIG reconfigurations and inventory faults hold the node once per GPU: two faulty
  // GPUs are two holds, and repairing one leaves the node out for the other.
  std::optional<GpuId> gpu;
  Text reason;
  bool down = false;  // down (nothing runs) rather than draining (running jobs stay)
  Seconds since = 0;
  [[nodiscard]] bool sameKey(HoldOwner o, std::optional<GpuId> g) const {
    return owner == o && gpu == g;
  }
  friend bool operator==(const NodeHold&, const NodeHold&) = default;
};

class NodeHolds {
 public:
  // Adds the hold, or replaces the one with the same owner and GPU (a new reason, down or not).
  void put(NodeHold hold);
  // False when there was no such hold.
  bool remove(HoldOwner owner, std::optional<GpuId> gpu = std::nullopt);
  [[nodiscard]] const NodeHold* find(HoldOwner owner,
                                     std::optional<GpuId> gpu = std::nullopt) const;
  [[nodiscard]] bool empty() const { return holds_.empty(); }
  [[nodiscard]] const std::vector<NodeHold>& all() const { return holds_; }
  // Down if any hold takes the node down, draining if any hold exists, up otherwise.
  [[nodiscard]] NodeState state() const;
  // The operator's reason when they gave one (their words are what other operators look for),
  // else the newest hold's; empty for an up node.
  [[nodiscard]] const Text& reason() const;

 private:
  std::vector<NodeHold> holds_;  // in the order they were put
};

}  // namespace tessera
