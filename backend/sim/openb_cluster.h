#pragma once
// The openb node lists (Alibaba cluster-trace-gpu-v2023: sn,cpu_milli,memory_mib,gpu,model) as raw
// rows, for the placement-quality experiment, and as a Cluster for the simulator. Format and
// mapping: docs/trace-formats.md.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/expected.h"
#include "sim/trace.h"
#include "topology/cluster.h"

namespace tessera {

struct OpenbNode {
  std::string name;
  int64_t cpuMilli = 0;
  int64_t memoryMiB = 0;
  int gpus = 0;
  std::string model;  // as written in the file (G2, V100M16, ...); empty for CPU-only nodes
  int line = 0;       // in the file, for messages
};

// Every row, CPU-only nodes included. A GPU node's model must be in the built-in GPU catalog.
// Malformed rows follow opts.stopOnError; when not stopping they are skipped and, if `problems`
// is given, recorded there. opts.limit bounds the number of nodes; time options do not apply.
Expected<std::vector<OpenbNode>> readOpenbNodeList(const std::string& path,
                                                   const TraceReadOptions& opts = {},
                                                   std::vector<TraceProblem>* problems = nullptr);

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
