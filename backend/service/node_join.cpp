#include "service/node_join.h"

#include <set>

#include "clusterspec/cluster_spec.h"
#include "clusterspec/cluster_spec_writer.h"
#include "core/strings.h"

namespace tessera {

namespace {

Error refused(const std::string& field, const std::string& what) {
  return Error::wrongState(literal(field + ": " + what));
}

// All GPUs listed once as 0..N-1, healthy, of one catalog model (a node template has one).
Status checkJoinable(const InventoryReport& r) {
  if (r.gpus.empty()) return refused("gpus", "the node reports no GPU; nothing to schedule on it");
  std::set<int> indexes;
  for (size_t i = 0; i < r.gpus.size(); ++i) {
    const InventoryGpu& g = r.gpus[i];
    const std::string at = "gpus[" + std::to_string(i) + "]";
    if (!g.fault.empty())
      return refused(at + ".fault", "GPU " + std::to_string(g.index) + " is faulted (" + g.fault +
                                        "); admit the node once it is back");
    if (g.model != r.gpus.front().model)
      return refused(at + ".model", g.model + " beside " + r.gpus.front().model +
                                        " (a node of the model has GPUs of one model)");
    indexes.insert(g.index);
  }
  if (*indexes.rbegin() != static_cast<int>(r.gpus.size()) - 1)
    return refused("gpus", "indexes are not 0.." + std::to_string(r.gpus.size() - 1) +
                               " (a GPU is missing from the report)");
  return okStatus();
}

// "<node>-hw", or with a number when the model already has a template of that name.
std::string freeTemplateName(const Cluster& c, const std::string& node) {
  std::set<std::string> taken;
  for (const auto& n : c.nodes()) taken.insert(n.hw->templateName);
  std::string name = node + "-hw";
  for (int k = 2; taken.count(name); ++k) name = node + "-hw-" + std::to_string(k);
  return name;
}

std::string templateYaml(const InventoryReport& r, const std::string& name) {
  std::string out = "  " + doubleQuoted(name) +
                    ":\n    gpu_model: " + doubleQuoted(r.gpus.front().model) +
                    "\n    gpus: " + std::to_string(r.gpus.size()) + "\n";
  if (r.cpus > 0) out += "    cpus: " + std::to_string(r.cpus) + "\n";
  if (r.memoryMiB >= 1024) out += "    memory_gib: " + std::to_string(r.memoryMiB / 1024) + "\n";
  if (r.topo.empty()) return out;
  out += "    topo: |2\n";  // |2: the matrix's first line starts with a TAB
  for (auto line : split(r.topo, '\n'))
    out += (line.empty() ? "" : "      ") + std::string(line) + "\n";
  return out;
}

std::string nodeYaml(const InventoryReport& r, const std::string& templ) {
  std::string out = "  - name: " + doubleQuoted(r.node) + "\n    template: " + doubleQuoted(templ) +
                    "\n    leaf: \"joining\"\n";
  if (!r.driverVersion.empty()) out += "    driver: " + doubleQuoted(r.driverVersion) + "\n";
  std::string gpus;
  for (const auto& g : r.gpus)
    if (g.migEnabled)
      gpus += "      \"" + std::to_string(g.index) +
              "\": {mig: " + doubleQuoted(g.migLayout.value_or("-")) + "}\n";
  return gpus.empty() ? out : out + "    gpus:\n" + gpus;
}

// The node alone as a one-node spec, loaded: the spec reader builds its hardware from the
// template (NUMA zones, NVLink, PCIe from the matrix) and checks its layouts.
Expected<std::shared_ptr<const Cluster>> nodeAlone(const Cluster& c, const InventoryReport& r,
                                                   const GpuCatalog& catalog) {
  const std::string templ = freeTemplateName(c, r.node);
  const std::string text =
      "version: 1\nname: \"joining\"\nnode_templates:\n" + templateYaml(r, templ) +
      "fabric:\n  spines: []\n  leafs:\n    - {name: \"joining\"}\nnodes:\n" + nodeYaml(r, templ);
  ClusterSpecOptions options;
  options.catalog = &catalog;
  auto alone = loadClusterSpec(text, "<inventory of node " + r.node + ">", options);
  if (!alone)
    return Error::wrongState(
        literal("the inventory does not make a cluster-spec entry: " + alone.error().str()));
  return alone;
}

Expected<SwitchId> leafFor(Cluster& grown, const InventoryReport& r) {
  const std::string name = r.leaf.empty() ? ownLeafName(r.node) : r.leaf;
  if (const FabricSwitch* sw = grown.findSwitch(name)) {
    if (sw->tier != SwitchTier::Leaf)
      return refused("leaf", "'" + name + "' is a spine of the fabric, not a leaf");
    return sw->id;
  }
  return grown.addSwitch(name, SwitchTier::Leaf, kNone);
}

}  // namespace

std::string ownLeafName(const std::string& node) {
  return "leaf-" + node;
}

Expected<std::shared_ptr<const Cluster>> clusterWithNode(const Cluster& cluster,
                                                         const InventoryReport& report,
                                                         const GpuCatalog& catalog) {
  TESSERA_CHECK(checkJoinable(report));
  TESSERA_TRY(alone, nodeAlone(cluster, report, catalog));
  auto grown = std::make_shared<Cluster>(cluster);
  TESSERA_TRY(leaf, leafFor(*grown, report));
  const Node& seen = alone->node(0);
  Node node;
  node.name = report.node;
  node.hw = seen.hw;
  node.pool = report.pool;
  node.driverVersion = seen.driverVersion;
  node.leaf = leaf;
  const NodeId id = grown->addNode(std::move(node));
  for (int i = 0; i < seen.gpuCount(); ++i)
    grown->mutableGpu(grown->node(id).firstGpu + static_cast<GpuId>(i)).sharing =
        alone->gpu(seen.firstGpu + static_cast<GpuId>(i)).sharing;
  // Loaded back from the text the database will hold: the engine runs on what a restart reads.
  ClusterSpecOptions options;
  options.catalog = &catalog;
  auto stored =
      loadClusterSpec(writeClusterSpec(*grown), "<cluster with node " + report.node + ">", options);
  if (!stored) return Error{"the cluster with the node does not load: " + stored.error().str(), {}};
  const Node* joined = (*stored)->findNode(report.node);
  if (!joined || joined->firstGpu != cluster.gpus().size())
    return Error{"the cluster with the node renumbers its GPUs", {}};
  return stored;
}

}  // namespace tessera
