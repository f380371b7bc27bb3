#pragma once
// All-or-nothing placement of a gang of tasks, inside a Transaction, at the tightest
// topology level it fits: one node, one NVLink domain, one leaf switch, one spine, the cluster.
// A required constraint never degrades; a preferred one (or none) degrades level by level. When
// nothing fits, the result says why in an operator's words, including fragmentation ("the gang
// needs 4 tasks within one leaf; the roomiest leaf has room for 3").
//
// Part of the scheduler engine issue (in progress): bin-packing across units, link-aware GPU
// choice, MIG and fractional tasks, CPUs and memory per task; scores from a policy come with the
// plugin framework.
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

// Places every task of `job` in `tx`: whole GPUs (best-linked set on a node), one MIG instance
// (an idle one first, else created where fragmentation grows least), or one share of a
// time-sliced GPU (the fullest that fits). On failure nothing is taken.
GangResult placeGang(Transaction& tx, const ClusterState& state, const Job& job);

}  // namespace tessera
