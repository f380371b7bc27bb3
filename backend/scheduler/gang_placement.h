#pragma once
// All-or-nothing placement of a gang of whole-GPU tasks, inside a Transaction, at the tightest
// topology level it fits: one node, one NVLink domain, one leaf switch, one spine, the cluster.
// A required constraint never degrades; a preferred one (or none) degrades level by level. When
// nothing fits, the result says why in an operator's words, including fragmentation ("the gang
// needs 4 tasks within one leaf; the roomiest leaf has room for 3").
//
// Part of the scheduler engine issue (in progress): whole-GPU gangs with bin-packing across units
// and link-aware GPU choice inside a node; MIG and fractional placement, scores from a policy and
// CPU/memory come with the plugin framework.
#include <optional>
#include <string>
#include <vector>

#include "scheduler/node_filter.h"
#include "scheduler/transaction.h"

namespace tessera {

struct TaskAssignment {
  NodeId node = 0;
  std::vector<GpuId> gpus;
};

struct GangPlacement {
  std::vector<TaskAssignment> tasks;
  TopologyLevel span = TopologyLevel::Cluster;  // tightest level containing every GPU of the gang
};

struct GangResult {
  std::optional<GangPlacement> placement;
  NodeFilterResult filter;
  std::string reason;  // why it did not fit (empty when placed)
};

// Places `job` (GpuRequest::Kind::Whole) in `tx`. On failure nothing is taken.
GangResult placeWholeGpuGang(Transaction& tx, const ClusterState& state, const Job& job);

}  // namespace tessera
