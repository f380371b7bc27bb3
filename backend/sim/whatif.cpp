#include "sim/whatif.h"

#include <iomanip>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "clusterspec/cluster_spec.h"
#include "scheduler/command_yaml.h"
#include "scheduler/scenario.h"
#include "topology/yaml_reader.h"

namespace tessera {
namespace {

Expected<std::vector<AddedNode>> addedNodesOf(const YamlField& f) {
  TESSERA_CHECK(f.expectSequence());
  std::vector<AddedNode> out;
  for (size_t i = 0; i < f.size(); ++i) {
    const YamlField n = f.item(i);
    TESSERA_CHECK(n.onlyKeys({"name", "template", "leaf"}));
    AddedNode a;
    TESSERA_TRY(name, n.stringAt("name"));
    TESSERA_TRY(tmpl, n.stringAt("template"));
    a.name = name;
    a.templateName = tmpl;
    if (n.has("leaf")) {
      TESSERA_TRY(leaf, n.stringAt("leaf"));
      a.leaf = leaf;
    }
    out.push_back(a);
  }
  return out;
}

// The base engine exported as a scenario, with the nodes added to its cluster spec.
Expected<Engine> withAddedNodes(const Engine& base, const std::vector<AddedNode>& nodes) {
  YAML::Node doc = YAML::Load(exportScenario(base, "what-if"));
  if (doc["cluster"].IsScalar()) doc["cluster"] = YAML::Load(std::string(demoClusterYaml()));
  YAML::Node list = doc["cluster"]["nodes"];
  for (const auto& a : nodes) {
    YAML::Node n;
    n["name"] = a.name;
    n["template"] = a.templateName;
    if (!a.leaf.empty()) n["leaf"] = a.leaf;
    list.push_back(n);
  }
  doc["cluster"]["nodes"] = list;
  YAML::Emitter out;
  out << doc;
  TESSERA_TRY(scenario, loadScenario(out.c_str(), "what-if (added nodes)"));
  return buildEngine(scenario);
}

}  // namespace

Expected<WhatIfChanges> loadWhatIf(std::string_view text, const std::string& file,
                                   const Workload* tenants) {
  TESSERA_TRY(doc, parseYaml(text, file));
  const YamlField root(doc, "", &file);
  TESSERA_CHECK(root.expectMap());
  TESSERA_CHECK(root.onlyKeys({"name", "policy", "commands", "add_nodes"}));
  WhatIfChanges c;
  if (root.has("name")) {
    TESSERA_TRY(name, root.stringAt("name"));
    c.name = name;
  }
  if (root.has("policy")) {
    TESSERA_TRY(policy, loadPolicyNode(root.child("policy").node(), file, "policy"));
    c.policy = policy;
  }
  if (root.has("commands")) {
    const YamlField list = root.child("commands");
    TESSERA_CHECK(list.expectSequence());
    for (size_t i = 0; i < list.size(); ++i) {
      TESSERA_TRY(cmd, commandFromYaml(list.item(i), tenants));
      c.commands.push_back(cmd);
    }
  }
  if (root.has("add_nodes")) {
    TESSERA_TRY(nodes, addedNodesOf(root.child("add_nodes")));
    c.addNodes = nodes;
  }
  if (c.empty()) return root.error("a what-if needs at least one of policy, commands, add_nodes");
  return c;
}

Expected<WhatIfChanges> loadWhatIfFile(const std::string& path, const Workload* tenants) {
  TESSERA_TRY(text, readTextFile(path));
  return loadWhatIf(text, path, tenants);
}

Expected<Engine> forkWithChanges(const Engine& base, const WhatIfChanges& changes) {
  std::optional<Engine> fork;
  if (changes.addNodes.empty()) {
    fork.emplace(base);
  } else {
    TESSERA_TRY(e, withAddedNodes(base, changes.addNodes));
    fork.emplace(std::move(e));
  }
  if (changes.policy) {
    TESSERA_CHECK(fork->setPolicy(*changes.policy));
  }
  for (size_t i = 0; i < changes.commands.size(); ++i) {
    auto r = execute(*fork, changes.commands[i], "what-if", false);
    if (!r)
      return Error{"change " + std::to_string(i + 1) + " (" + describe(changes.commands[i]) +
                       "): " + r.error().message,
                   {}};
  }
  return std::move(*fork);
}

Expected<WhatIfResult> runWhatIf(const Engine& base, const Trace& trace, const SimConfig& config,
                                 const std::vector<ScheduledEvent>& events,
                                 const WhatIfChanges& changes) {
  TESSERA_TRY(variantEngine, forkWithChanges(base, changes));
  // Added nodes rebuild the variant from an exported scenario, which carries only active work:
  // the baseline goes the same way, so both sides start from the same jobs and history.
  std::optional<Engine> rebuilt;
  if (!changes.addNodes.empty()) {
    TESSERA_TRY(e, withAddedNodes(base, {}));
    rebuilt.emplace(std::move(e));
  }
  Simulator a(rebuilt ? std::move(*rebuilt) : base, trace, config, events);
  Simulator b(std::move(variantEngine), trace, config, events);
  Status sa = okStatus(), sb = okStatus();
  std::thread other([&] { sb = b.run(); });
  sa = a.run();
  other.join();
  if (!sa) return Error{"baseline: " + sa.error().message, {}};
  if (!sb) return Error{changes.name + ": " + sb.error().message, {}};
  return WhatIfResult{a.summary(), b.summary(), a.logHash(), b.logHash()};
}

namespace {

struct Row {
  std::string name;
  double base, variant;
  int decimals;
};

std::vector<Row> rowsOf(const WhatIfResult& r) {
  const SimSummary& a = r.baseline;
  const SimSummary& b = r.variant;
  auto strandedTotal = [](const SimSummary& s) {
    double t = 0;
    for (double v : s.stranded) t += v;
    return t;
  };
  return {{"GPU allocation %", 100 * a.allocation, 100 * b.allocation, 1},
          {"GPU busy %", 100 * a.busy, 100 * b.busy, 1},
          {"SM-active (effective) %", 100 * a.effective, 100 * b.effective, 1},
          {"jobs completed", double(a.completed), double(b.completed), 0},
          {"jobs never started", double(a.neverStarted), double(b.neverStarted), 0},
          {"queue wait p50 (min)", a.wait.p50 / 60, b.wait.p50 / 60, 1},
          {"queue wait p95 (min)", a.wait.p95 / 60, b.wait.p95 / 60, 1},
          {"queue wait p99 (min)", a.wait.p99 / 60, b.wait.p99 / 60, 1},
          {"job completion p50 (h)", a.jct.p50 / 3600, b.jct.p50 / 3600, 2},
          {"bounded slowdown p50", a.slowdown.p50, b.slowdown.p50, 2},
          {"preemptions", double(a.preemptions), double(b.preemptions), 0},
          {"GPU-hours lost to preemption", a.gpuHoursLost, b.gpuHoursLost, 1},
          {"stranded GPUs (mean)", strandedTotal(a), strandedTotal(b), 1},
          {"FGD fragmentation (GPUs)", a.fgdFragmentation, b.fgdFragmentation, 1},
          {"engine cycle p99 (ms)", a.cycleMs.p99, b.cycleMs.p99, 2}};
}

}  // namespace

std::string whatIfTable(const WhatIfResult& r, const std::string& variantName) {
  std::ostringstream o;
  o << std::left << std::setw(32) << "metric" << std::right << std::setw(12) << "baseline"
    << std::setw(14) << variantName.substr(0, 13) << std::setw(12) << "change" << '\n';
  for (const Row& row : rowsOf(r)) {
    o << std::left << std::setw(32) << row.name << std::right << std::fixed
      << std::setprecision(row.decimals) << std::setw(12) << row.base << std::setw(14)
      << row.variant << std::setw(12) << std::showpos << row.variant - row.base << std::noshowpos
      << '\n';
  }
  return o.str();
}

void writeWhatIfJson(std::ostream& out, const WhatIfResult& r, const std::string& variantName) {
  nlohmann::json j;
  j["variant"] = variantName;
  for (const Row& row : rowsOf(r))
    j["metrics"].push_back({{"metric", row.name},
                            {"baseline", row.base},
                            {"variant", row.variant},
                            {"change", row.variant - row.base}});
  out << j.dump(2) << '\n';
}

}  // namespace tessera
