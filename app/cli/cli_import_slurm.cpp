// tessera cluster import-slurm: a Slurm cluster (live, or recorded sinfo/topology output) as a
// cluster spec, optionally merged with a Tessera spec (docs/slurm.md, "Importing a Slurm cluster").
#include <memory>

#include "cli/cli.h"
#include "cli/cli_context.h"
#include "core/strings.h"
#include "slurm/process_runner.h"
#include "slurm/slurm_client.h"
#include "slurm/slurm_import.h"
#include "topology/yaml_reader.h"

namespace tessera::cli {

namespace {

struct ImportArgs {
  std::string output;
  std::string spec;
  std::vector<std::string> gpuModels;
  std::vector<std::string> fromFiles;  // SINFO_JSON TOPOLOGY_TXT [CONFIG_TXT]
};

// What Slurm says, from its commands; an error carries the command line and Slurm's stderr.
Expected<slurm::SlurmInventory> askSlurm() {
  slurm::ProcessRunner runner;
  slurm::SlurmClient client(runner);
  slurm::SlurmInventory inv;
  TESSERA_TRY(nodes, client.nodes());
  TESSERA_TRY(switches, client.topology());
  TESSERA_TRY(config, client.config());
  inv.nodes = std::move(nodes.nodes);
  inv.switches = std::move(switches);
  inv.clusterName = config.get("ClusterName");
  return inv;
}

Expected<slurm::SlurmInventory> readRecorded(const std::vector<std::string>& paths) {
  const std::string& sinfoPath = paths[0];
  const std::string& topologyPath = paths[1];
  slurm::SlurmInventory inv;
  TESSERA_TRY(sinfoText, readTextFile(sinfoPath));
  auto nodes = slurm::parseSinfoJson(sinfoText);
  if (!nodes) return Error{sinfoPath + ": " + nodes.error().str(), {}};
  TESSERA_TRY(topologyText, readTextFile(topologyPath));
  auto switches = slurm::parseShowTopology(topologyText);
  if (!switches) return Error{topologyPath + ": " + switches.error().str(), {}};
  inv.nodes = std::move(nodes->nodes);
  inv.switches = std::move(switches).value();
  if (paths.size() > 2) {
    TESSERA_TRY(configText, readTextFile(paths[2]));
    inv.clusterName = slurm::parseShowConfig(configText).get("ClusterName");
  }
  return inv;
}

void report(Context& ctx, const slurm::SlurmImportResult& r) {
  for (const auto& w : r.warnings) ctx.err << "warning: " << w.str() << "\n";
  for (const auto& c : r.conflicts) ctx.err << "conflict: " << c.str() << "\n";
  if (!r.onlyInSlurm.empty())
    ctx.err << "only in Slurm (imported without spec hardware): " << join(r.onlyInSlurm, ", ")
            << "\n";
  if (!r.onlyInSpec.empty())
    ctx.err << "only in the spec (left out: Slurm does not run them): " << join(r.onlyInSpec, ", ")
            << "\n";
  ctx.err << "imported " << r.cluster->nodes().size() << " nodes, " << r.cluster->gpus().size()
          << " GPUs; " << r.conflicts.size() << " conflicts, " << r.warnings.size()
          << " warnings\n";
}

int importSlurm(Context& ctx, const ImportArgs& args) {
  const GpuCatalog* catalog = ctx.catalog();
  if (!catalog) return kExitUsage;
  slurm::SlurmImportOptions options;
  options.catalog = catalog;
  for (const auto& entry : args.gpuModels)
    if (auto added = options.mapping.add(entry, *catalog); !added)
      return ctx.fail("--gpu-model: " + added.error().message, kExitUsage);
  if (!args.spec.empty()) {
    // A GPU whose spec does not say node_sharing runs gres/mps as Slurm does by default.
    auto spec = loadClusterSpecFile(args.spec, catalog, MpsNodeSharing::One);
    if (!spec) return ctx.fail("--spec: " + spec.error().str(), loadErrorCode(args.spec));
    options.spec = *spec;
  }
  auto inventory = args.fromFiles.empty() ? askSlurm() : readRecorded(args.fromFiles);
  if (!inventory) {
    const char* what = args.fromFiles.empty() ? "cannot read the cluster from Slurm: "
                                              : "cannot read the recorded Slurm output: ";
    return ctx.fail(what + inventory.error().str(), kExitUsage);
  }
  auto result = slurm::importSlurmCluster(*inventory, options);
  if (!result) return ctx.fail(result.error().str(), kExitInvalid);
  report(ctx, *result);
  return ctx.writeOutput(args.output, result->yaml);
}

}  // namespace

void addImportSlurmVerb(CLI::App& cluster, Context& ctx) {
  auto args = std::make_shared<ImportArgs>();
  auto* cmd = cluster.add_subcommand(
      "import-slurm",
      "Build a cluster spec from Slurm (sinfo --json, scontrol show topology), optionally merged "
      "with a spec; conflicts and warnings go to stderr");
  cmd->add_option("-o,--output", args->output, "Output file (default: stdout)")->type_name("FILE");
  cmd->add_option("--spec", args->spec,
                  "Tessera spec to merge: adds NUMA, PCIe, NVLink, MIG placements, labels; "
                  "Slurm wins on models, counts, CPUs, memory, leafs, pools, states")
      ->type_name("FILE");
  cmd->add_option("--gpu-model", args->gpuModels,
                  "TYPE=MODEL maps a Slurm GPU type to a catalog model (repeatable); MODEL alone "
                  "is the model of untyped gpu:N GRES")
      ->type_name("TYPE=MODEL")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--from-files", args->fromFiles,
                  "Read saved `sinfo --json`, `scontrol show topology` (and `scontrol show "
                  "config`, for the cluster name) output instead of asking Slurm")
      ->type_name("SINFO_JSON TOPOLOGY_TXT [CONFIG_TXT]")
      ->expected(2, 3);
  cmd->callback([&ctx, args] { ctx.exitCode = importSlurm(ctx, *args); });
}

}  // namespace tessera::cli
