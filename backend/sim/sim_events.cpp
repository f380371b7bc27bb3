// The scheduled-events file of a simulation (docs/simulator.md#cluster-events).
#include "scheduler/command_yaml.h"
#include "sim/simulator.h"
#include "topology/mig_layout.h"
#include "topology/yaml_reader.h"

namespace tessera {
namespace {

Expected<ClusterEvent> nodeFailureOf(const YamlField& f) {
  TESSERA_CHECK(f.onlyKeys({"node", "repair"}));
  simev::NodeFailure e;
  TESSERA_TRY(node, f.stringAt("node"));
  e.node = node;
  if (f.has("repair")) {
    TESSERA_TRY(repair, durationOf(f.child("repair")));
    e.repair = repair;
  }
  return ClusterEvent{e};
}

Expected<ClusterEvent> gpuFaultOf(const YamlField& f) {
  TESSERA_CHECK(f.onlyKeys({"gpu", "xid", "repair"}));
  simev::GpuFault e;
  TESSERA_TRY(gpu, f.stringAt("gpu"));
  e.gpu = gpu;
  if (f.has("xid")) {
    TESSERA_TRY(xid, f.intAt("xid", 1));
    e.xid = xid;
  }
  if (f.has("repair")) {
    TESSERA_TRY(repair, durationOf(f.child("repair")));
    e.repair = repair;
  }
  return ClusterEvent{e};
}

Expected<ClusterEvent> migOf(const YamlField& f) {
  TESSERA_CHECK(f.onlyKeys({"gpu", "layout"}));
  simev::MigReconfigure e;
  TESSERA_TRY(gpu, f.stringAt("gpu"));
  TESSERA_TRY(layout, f.stringAt("layout"));
  e.gpu = gpu;
  e.layout = layout;
  return ClusterEvent{e};
}

Expected<ScheduledEvent> eventOf(const YamlField& f, const Workload* tenants) {
  TESSERA_CHECK(f.expectMap());
  TESSERA_CHECK(
      f.onlyKeys({"at", "node_failure", "gpu_fault", "mig_reconfigure", "command", "actor"}));
  ScheduledEvent e;
  e.file = f.location().file;
  e.line = f.location().line;
  if (!f.has("at")) return f.error("missing field 'at' (when the event happens)");
  TESSERA_TRY(at, durationOf(f.child("at")));
  e.at = at;
  int kinds = 0;
  for (const char* k : {"node_failure", "gpu_fault", "mig_reconfigure", "command"})
    kinds += f.has(k);
  if (kinds != 1)
    return f.error("give exactly one of node_failure, gpu_fault, mig_reconfigure, command");
  if (f.has("node_failure")) {
    TESSERA_TRY(ev, nodeFailureOf(f.child("node_failure")));
    e.event = ev;
  } else if (f.has("gpu_fault")) {
    TESSERA_TRY(ev, gpuFaultOf(f.child("gpu_fault")));
    e.event = ev;
  } else if (f.has("mig_reconfigure")) {
    TESSERA_TRY(ev, migOf(f.child("mig_reconfigure")));
    e.event = ev;
  } else {
    simev::Operator op;
    TESSERA_TRY(cmd, commandFromYaml(f.child("command"), tenants));
    op.command = cmd;
    if (f.has("actor")) {
      TESSERA_TRY(actor, f.stringAt("actor"));
      op.actor = actor;
    }
    e.event = op;
  }
  return e;
}

}  // namespace

Expected<std::vector<ScheduledEvent>> loadSimEvents(std::string_view text, const std::string& file,
                                                    const Workload* tenants) {
  TESSERA_TRY(doc, parseYaml(text, file));
  const YamlField root(doc, "", &file);
  std::vector<ScheduledEvent> out;
  if (!doc || doc.IsNull()) return out;
  TESSERA_CHECK(root.expectSequence());
  for (size_t i = 0; i < root.size(); ++i) {
    TESSERA_TRY(e, eventOf(root.item(i), tenants));
    out.push_back(std::move(e));
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const ScheduledEvent& a, const ScheduledEvent& b) { return a.at < b.at; });
  return out;
}

Status checkSimEvents(const Cluster& cluster, const std::vector<ScheduledEvent>& events) {
  for (const auto& e : events) {
    const Error where{"", {e.file, e.line, 0, ""}};
    auto fail = [&](const std::string& why) { return Error{why, where.where}; };
    auto gpu = [&](const std::string& name) -> Expected<const Gpu*> {
      if (const Gpu* g = cluster.findGpu(name)) return g;
      return fail("no GPU '" + name + "' in the cluster (write node/index)");
    };
    if (const auto* f = std::get_if<simev::NodeFailure>(&e.event)) {
      if (!cluster.findNode(f->node)) return fail("no node '" + f->node + "' in the cluster");
    } else if (const auto* g = std::get_if<simev::GpuFault>(&e.event)) {
      TESSERA_CHECK(gpu(g->gpu));
    } else if (const auto* m = std::get_if<simev::MigReconfigure>(&e.event)) {
      TESSERA_TRY(target, gpu(m->gpu));
      const auto layout = parseMigLayout(cluster.modelOf(target->id), m->layout);
      if (!layout) return fail(m->gpu + ": " + layout.error().message);
    }
  }
  return okStatus();
}

Expected<std::vector<ScheduledEvent>> loadSimEventsFile(const std::string& path,
                                                        const Workload* tenants) {
  TESSERA_TRY(text, readTextFile(path));
  return loadSimEvents(text, path, tenants);
}

}  // namespace tessera
