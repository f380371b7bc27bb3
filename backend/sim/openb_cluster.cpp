#include "sim/openb_cluster.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <tuple>

#include "clusterspec/cluster_spec.h"
#include "core/strings.h"
#include "topology/gpu_catalog.h"

namespace tessera {

namespace {

constexpr size_t kNodesPerLeaf = 64;

struct TemplateKey {
  std::string modelId;
  int gpus;
  int64_t cpus;
  int64_t memoryGiB;
  auto operator<=>(const TemplateKey&) const = default;
};

TemplateKey templateKey(const OpenbNode& n) {
  const GpuModel* m = GpuCatalog::builtin().find(n.model);
  return {m ? m->id : n.model, n.gpus, std::max<int64_t>(1, n.cpuMilli / 1000),
          std::max<int64_t>(1, n.memoryMiB / 1024)};
}

std::string templateName(const TemplateKey& k) {
  return k.modelId + "-" + std::to_string(k.gpus) + "gpu-" + std::to_string(k.cpus) + "cpu-" +
         std::to_string(k.memoryGiB) + "gib";
}

}  // namespace

std::string openbClusterSpecYaml(const std::vector<OpenbNode>& nodes, const std::string& name) {
  std::map<TemplateKey, std::string> templates;
  std::vector<const OpenbNode*> gpuNodes;
  for (const auto& n : nodes) {
    if (n.gpus <= 0 || n.model.empty()) continue;
    gpuNodes.push_back(&n);
    const TemplateKey k = templateKey(n);
    templates.emplace(k, templateName(k));
  }
  std::string y =
      "# Generated from the openb node list by readOpenbNodes (docs/trace-formats.md).\n";
  y += "version: 1\nname: " + doubleQuoted(name) + "\nnode_templates:\n";
  for (const auto& [k, tname] : templates)
    y += "  " + doubleQuoted(tname) + ": {gpu_model: " + doubleQuoted(k.modelId) +
         ", gpus: " + std::to_string(k.gpus) + ", cpus: " + std::to_string(k.cpus) +
         ", memory_gib: " + std::to_string(k.memoryGiB) + "}\n";
  const size_t leafs = std::max<size_t>(1, (gpuNodes.size() + kNodesPerLeaf - 1) / kNodesPerLeaf);
  y += "fabric:\n  spines: [openb-spine]\n  leafs:\n";
  for (size_t l = 1; l <= leafs; ++l)
    y += "    - {name: openb-leaf-" + std::to_string(l) + ", spine: openb-spine}\n";
  y += "nodes:\n";
  for (size_t i = 0; i < gpuNodes.size(); ++i)
    y += "  - {name: " + doubleQuoted(gpuNodes[i]->name) +
         ", template: " + doubleQuoted(templates.at(templateKey(*gpuNodes[i]))) +
         ", leaf: openb-leaf-" + std::to_string(i / kNodesPerLeaf + 1) + "}\n";
  return y;
}

Expected<std::shared_ptr<const Cluster>> readOpenbNodes(const std::string& path,
                                                        const TraceReadOptions& opts,
                                                        OpenbClusterInfo* info) {
  OpenbClusterInfo out;
  TESSERA_TRY(nodes, readOpenbNodeList(path, opts, &out.problems));
  for (const auto& n : nodes) {
    if (n.gpus > 0) {
      ++out.nodes;
      out.gpus += n.gpus;
    } else {
      ++out.cpuOnlyNodesSkipped;
    }
  }
  if (out.nodes == 0)
    return Error{"the node list has no GPU node (the simulator models GPU nodes only)",
                 {path, 0, 0, ""}};
  const std::string name = std::filesystem::path(path).stem().string();
  TESSERA_TRY(cluster, loadClusterSpec(openbClusterSpecYaml(nodes, name),
                                       path + " (as a generated cluster spec)"));
  if (info) *info = std::move(out);
  return cluster;
}

}  // namespace tessera
