#pragma once
// All-or-nothing placement of a gang of tasks, inside a Transaction, at the tightest
// topology level it fits: one node, one NVLink domain, one leaf switch, one spine, the cluster.
// A required constraint never degrades; a preferred one (or none) degrades level by level. When
// nothing fits, the result says why in an operator's words, including fragmentation ("the gang
// needs 4 tasks within one leaf; the roomiest leaf has room for 3").
//
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "scheduler/node_filter.h"
#include "scheduler/transaction.h"

namespace tessera {

struct TaskAssignment {
  NodeId node = 0;
  std::vector<GpuId> gpus;
  // MIG tasks: the first memory slice of the instance it holds; MPS tasks: that of the MIG
  // instance whose MPS server the client joined (-1 = the GPU's own server).
  int migStart = -1;
};

struct GangPlacement {
  std::vector<TaskAssignment> tasks;
  TopologyLevel span = TopologyLevel::Cluster;  // tightest level containing every GPU of the gang
};

struct GangResult {
  std::optional<GangPlacement> placement;
  NodeFilterResult filter;
  Text reason;  // why it did not fit (empty when placed)
};

// A candidate for the whole gang at one topology level: the nodes of one node, NVLink domain,
// leaf or spine that can host tasks, and how many each can take.
struct UnitView {
  std::span<const std::pair<NodeId, int>> nodes;
  int capacity = 0;  // tasks of the job the unit can take
  int freeGpus = 0;  // free whole GPUs on those nodes
  TopologyLevel level = TopologyLevel::Node;
};

// Ranks the units that fit (the score extension point); the engine's scorer combines the policy's
// weighted score plugins. Without one, placement bin-packs: the unit with the fewest free GPUs.
class UnitScorer {
 public:
  virtual ~UnitScorer() = default;
  // Index of the best unit in `units` (never empty).
  [[nodiscard]] virtual size_t best(const ClusterState& state, const Job& job,
                                    std::span<const UnitView> units) const = 0;
};

struct PlacementOptions {
  const GpuGate* gate = nullptr;               // GPUs the job may not take
  const UnitScorer* scorer = nullptr;          // nullptr = bin-pack by free GPUs
  std::optional<TopologyConstraint> topology;  // overrides the job's (counterfactuals)
  // Always run the full node filter, so a successful result carries the node counts too
  // (explanations); otherwise whole-GPU jobs that fit on one node skip it.
  bool fullFilter = false;
};

// Places every task of `job` in `tx`: whole GPUs (best-linked set on a node, NUMA- and
// NIC-aligned among equals), one MIG instance (an idle one first, else created where
// fragmentation grows least), or one share of a time-sliced GPU (the fullest that fits). On
// failure nothing is taken.
GangResult placeGang(Transaction& tx, const ClusterState& state, const Job& job,
                     const PlacementOptions& options = {});

// "n1[0,1] n2[0,1]": each task's node and local GPU indexes, as operators read placements.
std::string placementText(const Cluster& c, const GangPlacement& p);

// The unit node `n` belongs to at `level` (node, NVLink domain, leaf, spine, or its spine-connected
// part of the cluster; an island leaf is its own unit), as a key; nullopt when it has none there
// (a node outside any NVLink domain). Placement, backfill and explanations group nodes by it.
std::optional<int64_t> topologyUnitOf(const Cluster& c, NodeId n, TopologyLevel level);

// The nodes a unit's tasks would land on, fullest first, with the tasks each takes (the order
// placement uses; scorers look at the same nodes).
std::vector<std::pair<NodeId, int>> unitTaskNodes(const ClusterState& state, const UnitView& unit,
                                                  int tasks);

// "NVLink domain": a topology level as sentences name it (translatable).
Text levelWords(TopologyLevel l);

}  // namespace tessera
