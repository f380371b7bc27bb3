// tessera node probe: this node's GPUs from NVML (or nvidia-smi), checked against the catalog and
// printed as its cluster-spec entry (docs/node-probe.md).
#include "cli/cli_node.h"
#include "cli/cli.h"
#include "inventory/catalog_check.h"
#include "inventory/inventory_output.h"
#include "inventory/node_probe.h"
#include "inventory/nvml_sampler.h"

namespace tessera::cli {

namespace {

struct ProbeArgs {
  std::string format = "yaml";
  std::string source = "auto";
  NodeProbeOptions probe;
  SpecNames names;
};

ProbeSource sourceOf(const std::string& name) {
  if (name == "nvml") return ProbeSource::Nvml;
  if (name == "nvidia-smi") return ProbeSource::NvidiaSmi;
  return ProbeSource::Auto;
}

void printUnknownModels(Context& ctx, const NodeInventory& node, const CatalogCheck& check) {
  for (const auto& message : check.unknown) ctx.err << "tessera: " << message << "\n";
  ctx.out << "# catalog entry for the GPU model(s) this node reports; add it under models: in a\n"
             "# catalog file (docs/gpu-catalog.md) and pass --catalog FILE\nversion: 1\nmodels:\n";
  for (size_t i = 0; i < node.gpus.size(); ++i)
    if (!check.models[i] && node.gpus[i].fault.empty()) {
      ctx.out << catalogStanza(node.gpus[i]);
      break;
    }
}

int probe(Context& ctx, ProbeArgs args) {
  const GpuCatalog* catalog = ctx.catalog();
  if (!catalog) return kExitUsage;
  args.probe.source = sourceOf(args.source);
  auto node = probeNode(args.probe);
  if (!node) return ctx.fail(node.error().str(), kExitInvalid);
  const CatalogCheck check = checkAgainstCatalog(*node, *catalog);
  for (const auto& note : node->notes) ctx.err << "tessera: note: " << note << "\n";
  for (const auto& warning : check.warnings) ctx.err << "tessera: warning: " << warning << "\n";
  if (args.format == "json") {
    ctx.out << inventoryJson(*node, check);
    return check.allKnown() ? kExitOk : kExitInvalid;
  }
  if (!check.allKnown()) {
    printUnknownModels(ctx, *node, check);
    return kExitInvalid;
  }
  if (args.names.node.empty()) args.names.node = node->hostname;
  auto yaml = inventorySpecYaml(*node, check, args.names);
  if (!yaml) return ctx.fail(yaml.error().str(), kExitInvalid);
  ctx.out << *yaml;
  return kExitOk;
}

struct SampleArgs {
  NvmlProbeOptions nvml;
  std::string hostname;
};

int sample(Context& ctx, const SampleArgs& args) {
  auto samples = sampleNvml(args.nvml);
  if (!samples) return ctx.fail(samples.error().str(), kExitInvalid);
  std::string host = args.hostname;
  if (host.empty()) host = probeHostName();
  ctx.out << dcgmExposition(*samples, host);
  return kExitOk;
}

void addSampleVerb(CLI::App& node, Context& ctx) {
  auto args = std::make_shared<SampleArgs>();
  auto* cmd = node.add_subcommand(
      "sample",
      "Print one NVML reading of this node's GPUs (utilization, memory, temperature, power; a "
      "lost GPU as Xid 79) as dcgm-exporter text, for nodes without dcgm-exporter: "
      "tessera node sample | tessera ctl telemetry push");
  cmd->add_option("--nvml-library", args->nvml.library, "NVML library to load")
      ->capture_default_str();
  cmd->add_option("--hostname", args->hostname, "Hostname label of the rows (default: host name)");
  cmd->callback([&ctx, args] { ctx.exitCode = sample(ctx, *args); });
}

}  // namespace

void addNodeVerbs(CLI::App& app, Context& ctx) {
  auto* node = app.add_subcommand("node", "This machine's GPUs, as the hardware reports them");
  node->require_subcommand(1);
  auto args = std::make_shared<ProbeArgs>();
  auto* probeCmd = node->add_subcommand(
      "probe",
      "Read this node's GPUs from NVML (or nvidia-smi when NVML is missing), check them against "
      "the GPU catalog and print the node's cluster-spec entry (warnings go to stderr)");
  probeCmd->add_option("-o,--output", args->format, "yaml: the spec entry; json: the inventory")
      ->check(CLI::IsMember({"yaml", "json"}))
      ->capture_default_str();
  probeCmd->add_option("--source", args->source, "auto: NVML if it loads, else nvidia-smi")
      ->check(CLI::IsMember({"auto", "nvml", "nvidia-smi"}))
      ->capture_default_str();
  probeCmd->add_option("--nvml-library", args->probe.nvml.library, "NVML library to load")
      ->capture_default_str();
  probeCmd->add_option("--nvidia-smi", args->probe.nvidiaSmi, "nvidia-smi to run")
      ->capture_default_str();
  probeCmd
      ->add_option("--recorded", args->probe.recordedDir,
                   "Read saved nvidia-smi outputs from DIR (nvidia-smi-q.xml, topo-m.txt, "
                   "mig-lgip.txt, mig-lgipp.txt, mig-lgi.txt, mig-lci.txt) instead of running it")
      ->check(CLI::ExistingDirectory);
  probeCmd
      ->add_option("--sysfs", args->probe.nvml.sysfsRoot,
                   "Where sysfs is mounted (NVML source: NUMA node and CPU affinity)")
      ->capture_default_str();
  probeCmd->add_option("--name", args->names.node, "Node name in the spec (default: host name)");
  probeCmd->add_option("--template", args->names.templ, "Node template name (default: NAME-hw)");
  probeCmd->add_option("--leaf", args->names.leaf, "Leaf switch of the node")
      ->capture_default_str();
  probeCmd->callback([&ctx, args] { ctx.exitCode = probe(ctx, *args); });
  addSampleVerb(*node, ctx);
}

}  // namespace tessera::cli
