#pragma once
// What-if analysis: fork a snapshot of the scheduler (the demo cluster, a saved state exported as
// a scenario, or a live engine), apply changes to one copy (policy, quotas, MIG layouts, drains,
// reservations - any operator command - and added nodes), fast-forward the same workload under
// both, and report the differences side by side. The original engine is never touched.
#include <optional>
#include <string>
#include <vector>

#include "scheduler/command.h"
#include "scheduler/engine.h"
#include "sim/simulator.h"

namespace tessera {

struct AddedNode {
  std::string name;
  std::string templateName;  // a node template of the cluster spec
  std::string leaf;          // empty = the spec's default
};

struct WhatIfChanges {
  std::string name = "what-if";
  std::optional<Policy> policy;
  std::vector<Command> commands;  // applied, in order, as the operator at the fork time
  std::vector<AddedNode> addNodes;
  [[nodiscard]] bool empty() const { return !policy && commands.empty() && addNodes.empty(); }
};

// The changes file (docs/simulator.md#what-if):
//   name: two-more-dgx
//   policy: {score: [{name: fgd, weight: 2}]}   # a policy document, replacing the current one
//   commands: [{set_quota: {team: vision, key: "*", guaranteed: 32}}, {drain: {node: n1}}]
//   add_nodes: [{name: extra-01, template: dgx-h100, leaf: leaf-a}]
Expected<WhatIfChanges> loadWhatIf(std::string_view text, const std::string& file,
                                   const Workload* tenants = nullptr);
Expected<WhatIfChanges> loadWhatIfFile(const std::string& path, const Workload* tenants = nullptr);

// A copy of `base` with the changes applied (nodes added through an exported scenario, so every
// running job keeps its GPUs). Fails naming the change that could not be applied.
Expected<Engine> forkWithChanges(const Engine& base, const WhatIfChanges& changes);

struct WhatIfResult {
  SimSummary baseline;
  SimSummary variant;
  uint64_t baselineHash = 0, variantHash = 0;
};

// Simulates the same trace and events from `base` as it is and with the changes (two threads).
Expected<WhatIfResult> runWhatIf(const Engine& base, const Trace& trace, const SimConfig& config,
                                 const std::vector<ScheduledEvent>& events,
                                 const WhatIfChanges& changes);

// One row per metric: name, baseline, variant, difference (text table or JSON).
std::string whatIfTable(const WhatIfResult& r, const std::string& variantName);
void writeWhatIfJson(std::ostream& out, const WhatIfResult& r, const std::string& variantName);

}  // namespace tessera
