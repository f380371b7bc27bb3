#pragma once
// The openb node lists (Alibaba cluster-trace-gpu-v2023: sn,cpu_milli,memory_mib,gpu,model) as a
// Cluster for the simulator. The rows themselves (OpenbNode, readOpenbNodeList) are in
// openb_data.h. Format and mapping: docs/trace-formats.md.
#include <memory>
#include <string>
#include <vector>

#include "core/expected.h"
#include "sim/openb_data.h"
#include "sim/trace.h"
#include "topology/cluster.h"

namespace tessera {

// What readOpenbNodes built and left out.
struct OpenbClusterInfo {
  int nodes = 0;                       // GPU nodes in the cluster
  int gpus = 0;                        // their GPUs
  int cpuOnlyNodesSkipped = 0;         // rows with no GPU: the GPU simulator does not model them
  std::vector<TraceProblem> problems;  // malformed rows skipped (when not stopping at the first)
};

// The GPU nodes as a cluster: one node template per distinct (model, GPUs, CPUs, memory), nodes
// in file order under leaf switches of at most 64 nodes, all leafs under one spine. CPUs are whole
// cores (cpu_milli / 1000, rounded down), memory whole GiB (rounded down, at least 1).
Expected<std::shared_ptr<const Cluster>> readOpenbNodes(const std::string& path,
                                                        const TraceReadOptions& opts = {},
                                                        OpenbClusterInfo* info = nullptr);

// The cluster spec YAML (docs/cluster-spec.md) readOpenbNodes loads, for `tessera cluster`
// commands and inspection. CPU-only nodes in `nodes` are left out.
std::string openbClusterSpecYaml(const std::vector<OpenbNode>& nodes, const std::string& name);

}  // namespace tessera
