// tessera cluster show | export | validate | node | import-topo (import-slurm:
// cli_import_slurm.cpp)
#include <algorithm>
#include <iomanip>
#include <sstream>

#include "cli/cli.h"
#include "cli/cli_context.h"
#include "clusterspec/cluster_spec.h"
#include "clusterspec/cluster_spec_writer.h"
#include "clusterspec/cluster_summary.h"
#include "clusterspec/node_template.h"
#include "core/strings.h"
#include "topology/nvsmi_topo.h"
#include "topology/yaml_reader.h"

namespace tessera::cli {

namespace {

// The spec named on the command line, or the embedded demo cluster when none is given.
Expected<std::shared_ptr<const Cluster>> loadSpec(Context& ctx, const std::string& path) {
  const GpuCatalog* catalog = ctx.catalog();
  if (!catalog) return Error{"cannot load the GPU catalog", {}};
  return loadClusterOrDemo(path, *catalog);
}

int showCluster(Context& ctx, const std::string& path) {
  if (!ctx.catalog()) return kExitUsage;
  auto cluster = loadSpec(ctx, path);
  if (!cluster) return ctx.fail(cluster.error().str(), loadErrorCode(path));
  const ClusterSummary s = summarize(**cluster);
  ctx.out << (ctx.format == "json" ? summaryJson(s) : formatSummary(s));
  return kExitOk;
}

int exportCluster(Context& ctx, const std::string& path, const std::string& output) {
  if (!ctx.catalog()) return kExitUsage;
  auto cluster = loadSpec(ctx, path);
  if (!cluster) return ctx.fail(cluster.error().str(), loadErrorCode(path));
  return ctx.writeOutput(output, writeClusterSpec(**cluster));
}

int validateClusters(Context& ctx, const std::vector<std::string>& paths) {
  if (!ctx.catalog()) return kExitUsage;
  int code = kExitOk;
  for (const auto& path : paths) {
    auto cluster = loadSpec(ctx, path);
    if (!cluster) {
      ctx.err << cluster.error().str() << "\n";
      code = std::max(code, loadErrorCode(path));
      continue;
    }
    ctx.out << path << ": OK (" << (*cluster)->nodes().size() << " nodes, "
            << (*cluster)->gpus().size() << " GPUs, " << (*cluster)->nvlinkDomains().size()
            << " NVLink domains)\n";
  }
  return code;
}

// "thread budget 150 %, co-location by user": what decides who may join a GPU's MPS servers.
std::string mpsPolicyText(const MpsPolicy& p) {
  return "thread budget " + std::to_string(p.threadBudget) + " %, co-location by " +
         mpsCoLocationName(p.coLocation);
}

std::string gpuSharingText(const Cluster& c, const Gpu& g) {
  switch (g.sharing.mode) {
    case SharingMode::Exclusive:
      return "exclusive";
    case SharingMode::TimeSliced:
      return "time-sliced x" + std::to_string(g.sharing.replicas);
    case SharingMode::Mig: {
      const std::string layout = "MIG " + formatMigLayout(c.modelOf(g.id), g.sharing.mig);
      if (!g.sharing.runsMps()) return layout;
      return layout + ", MPS in the instances (" + mpsPolicyText(g.sharing.mps) + ")";
    }
    case SharingMode::Mps:
      // node_sharing: one (Slurm's one_sharing) is said; all, as CUDA has it, goes without.
      return "MPS (" + mpsPolicyText(g.sharing.mps) +
             (g.sharing.mps.nodeSharing == MpsNodeSharing::One ? ", one GPU per node at a time"
                                                               : "") +
             ")";
  }
  return "?";
}

// GPU rows against GPU columns, then NIC columns (GPUDirect RDMA paths), as topo -m lays them out.
void printLinkMatrix(Context& ctx, const Node& n) {
  const NodeHardware& hw = *n.hw;
  const int nics = static_cast<int>(hw.nics.size());
  ctx.out << "Link matrix (as nvidia-smi topo -m):\n      ";
  for (int b = 0; b < hw.gpuCount; ++b) ctx.out << std::setw(6) << ("GPU" + std::to_string(b));
  for (int k = 0; k < nics; ++k) ctx.out << std::setw(6) << ("NIC" + std::to_string(k));
  ctx.out << "\n";
  for (int a = 0; a < hw.gpuCount; ++a) {
    ctx.out << std::setw(6) << std::left << ("GPU" + std::to_string(a)) << std::right;
    for (int b = 0; b < hw.gpuCount; ++b) ctx.out << std::setw(6) << hw.link(a, b).str();
    for (int k = 0; k < nics; ++k) ctx.out << std::setw(6) << hw.nicLink(a, k).str();
    ctx.out << "\n";
  }
  for (int k = 0; k < nics; ++k) {
    const Nic& nic = hw.nics[static_cast<size_t>(k)];
    ctx.out << "  NIC" << k << ": " << nic.name;
    if (nic.speedGbps > 0) ctx.out << ", " << nic.speedGbps << " Gb/s";
    if (nic.numa != kNone) ctx.out << ", NUMA " << nic.numa;
    ctx.out << "\n";
  }
}

int showNode(Context& ctx, const std::string& name, const std::string& path) {
  if (!ctx.catalog()) return kExitUsage;
  auto cluster = loadSpec(ctx, path);
  if (!cluster) return ctx.fail(cluster.error().str(), loadErrorCode(path));
  const Cluster& c = **cluster;
  const Node* n = c.findNode(name);
  if (!n) return ctx.fail("no node named '" + name + "' in cluster " + c.name, kExitUsage);
  const NodeHardware& hw = *n->hw;
  const SwitchId spine = c.spineOf(n->id);
  ctx.out << n->name << ": " << hw.gpuCount << " x " << hw.gpuModel->id << " (template "
          << hw.templateName << ")\n";
  ctx.out << "State: " << nodeStateName(n->state) << "; pool: " << (n->pool.empty() ? "-" : n->pool)
          << "; driver: " << (n->driverVersion.empty() ? "-" : n->driverVersion) << "\n";
  ctx.out << "Fabric: leaf " << c.switches()[static_cast<size_t>(n->leaf)].name << ", spine "
          << (spine == kNone ? "-" : c.switches()[static_cast<size_t>(spine)].name) << "\n";
  std::vector<std::string> labels;
  for (const auto& [k, v] : n->labels) labels.push_back(k + "=" + v);
  if (!labels.empty()) ctx.out << "Labels: " << join(labels, ", ") << "\n";
  ctx.out << "CPUs: " << hw.cpus << "; memory: " << hw.memoryMiB / 1024
          << " GiB; NUMA zones: " << hw.numa.size() << "; PCIe switches: " << hw.pcieSwitches.size()
          << "; NICs: " << hw.nics.size() << "\n";
  for (int i = 0; i < hw.gpuCount; ++i) {
    const Gpu& g = c.gpu(n->firstGpu + static_cast<GpuId>(i));
    const int sw = hw.gpuPcieSwitch[static_cast<size_t>(i)];
    ctx.out << "  GPU" << i << ": NUMA " << hw.gpuNuma[static_cast<size_t>(i)] << ", PCIe switch "
            << (sw == kNone ? "-" : std::to_string(sw)) << ", NVLink domain "
            << (g.nvlinkDomain == kNone
                    ? "-"
                    : c.nvlinkDomains()[static_cast<size_t>(g.nvlinkDomain)].name)
            << ", " << gpuSharingText(c, g) << "\n";
  }
  printLinkMatrix(ctx, *n);
  return kExitOk;
}

int importTopo(Context& ctx, const std::string& path, const std::string& modelName,
               const std::string& name) {
  if (name.empty()) return ctx.fail("--name: a template name must not be empty", kExitUsage);
  const GpuModel* model = ctx.model(modelName, false);
  if (!model) return kExitUsage;
  auto text = readTextFile(path);
  if (!text) return ctx.fail(text.error().str(), kExitUsage);
  auto topo = parseNvidiaSmiTopo(*text, path);
  if (!topo) return ctx.fail(topo.error().str(), kExitInvalid);
  // A template the spec reader would reject is no use to paste anywhere.
  if (topo->gpus.size() > static_cast<size_t>(kMaxGpusPerNode)) {
    return ctx.fail(path + ": " + std::to_string(topo->gpus.size()) +
                        " GPUs, but the cluster spec format allows at most " +
                        std::to_string(kMaxGpusPerNode) + " GPUs per node",
                    kExitInvalid);
  }
  std::shared_ptr<const GpuModel> ref;
  for (const auto& m : ctx.catalog()->models())
    if (m.get() == model) ref = m;
  auto hw = hardwareFromTopo(*topo, ref, name);
  if (!hw) return ctx.fail(hw.error().str(), kExitInvalid);
  const char* nvlink = (*hw)->nvlink == NvlinkMode::NvSwitch  ? "nvswitch"
                       : (*hw)->nvlink == NvlinkMode::Bridged ? "bridged"
                                                              : "none";
  ctx.out << "# node template imported from " << path << ": " << (*hw)->gpuCount << " GPUs, "
          << (*hw)->numa.size() << " NUMA zones, " << (*hw)->pcieSwitches.size()
          << " PCIe switches, " << (*hw)->nics.size() << " NICs, NVLink " << nvlink << "\n";
  ctx.out << "# paste under node_templates: in a cluster spec\n";
  ctx.out << nodeTemplateYaml(**hw, *text);
  return kExitOk;
}

}  // namespace

void addClusterVerbs(CLI::App& app, Context& ctx) {
  auto* cluster = app.add_subcommand(
      "cluster", "Cluster specs: summary, validation, nodes, topology and Slurm import");
  cluster->require_subcommand(1);

  auto showPath = std::make_shared<std::string>();
  auto* show = cluster->add_subcommand(
      "show", "Summarize a cluster spec (default: the built-in demo cluster)");
  show->add_option("FILE", *showPath, "Cluster spec (YAML)");
  show->add_option("-o,--output", ctx.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  show->callback([&ctx, showPath] { ctx.exitCode = showCluster(ctx, *showPath); });

  auto exportPath = std::make_shared<std::string>();
  auto exportOut = std::make_shared<std::string>();
  auto* exp = cluster->add_subcommand(
      "export", "Write a spec in explicit form (every node listed; default: the demo cluster)");
  exp->add_option("FILE", *exportPath, "Cluster spec (YAML)");
  exp->add_option("-o,--output", *exportOut, "Output file (default: stdout)");
  exp->callback([&ctx, exportPath, exportOut] {
    ctx.exitCode = exportCluster(ctx, *exportPath, *exportOut);
  });

  auto paths = std::make_shared<std::vector<std::string>>();
  auto* validate = cluster->add_subcommand(
      "validate", "Check cluster specs; errors name file:line:column and field");
  validate->add_option("FILE", *paths, "Cluster spec files")->required();
  validate->callback([&ctx, paths] { ctx.exitCode = validateClusters(ctx, *paths); });

  auto nodeName = std::make_shared<std::string>();
  auto nodeSpec = std::make_shared<std::string>();
  auto* node = cluster->add_subcommand(
      "node", "Show one node: fabric, NUMA, PCIe, NVLink, GPU sharing, link matrix");
  node->add_option("NAME", *nodeName, "Node name")->required();
  node->add_option("--spec", *nodeSpec, "Cluster spec (default: the built-in demo cluster)");
  node->callback(
      [&ctx, nodeName, nodeSpec] { ctx.exitCode = showNode(ctx, *nodeName, *nodeSpec); });

  auto topoPath = std::make_shared<std::string>();
  auto topoModel = std::make_shared<std::string>();
  auto topoName = std::make_shared<std::string>("imported-node");
  auto* import = cluster->add_subcommand("import-topo",
                                         "Build a node template from `nvidia-smi topo -m` output");
  import->add_option("FILE", *topoPath, "Saved output of nvidia-smi topo -m")->required();
  import->add_option("--model", *topoModel, "GPU model of the node (catalog id or alias)")
      ->required();
  import->add_option("--name", *topoName, "Template name")->capture_default_str();
  import->callback([&ctx, topoPath, topoModel, topoName] {
    ctx.exitCode = importTopo(ctx, *topoPath, *topoModel, *topoName);
});
addImportSlurmVerb(*cluster, ctx);
}  // namespace tessera::cli

}  // namespace tessera::cli
