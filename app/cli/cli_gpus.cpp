// tessera gpus list | show MODEL
#include <nlohmann/json.hpp>

#include <iomanip>
#include <sstream>

#include "cli/cli.h"
#include "cli/cli_context.h"
#include "core/strings.h"
#include "topology/mig_layout.h"

namespace tessera::cli {

namespace {

std::string orUnknown(const std::optional<int>& v, const std::string& unit) {
  return v ? std::to_string(*v) + unit : "unknown";
}

std::string nvlinkText(const GpuModel& m) {
  if (m.nvlink.generation == 0) return "none";
  return "gen " + std::to_string(m.nvlink.generation) + ", " + std::to_string(m.nvlink.links) +
         " links, " + std::to_string(m.nvlink.bandwidthGBps) + " GB/s";
}

// "{0,4}:4": where the profile may start, and how many memory slices it spans from there.
std::string placementsText(const MigGeometry& g, const MigProfile& p) {
  return "{" + formatStarts(g, p.startMask) + "}:" + std::to_string(p.memorySlices);
}

nlohmann::json modelJson(const GpuModel& m) {
  nlohmann::json j{{"id", m.id},
                   {"product_name", m.productName},
                   {"aliases", m.aliases},
                   {"architecture", m.architecture},
                   {"mig_capable", m.migCapable()},
                   {"unconfirmed", m.unconfirmed}};
  if (m.memoryMiB) j["memory_mib"] = *m.memoryMiB;
  if (m.smCount) j["sm_count"] = *m.smCount;
  if (m.nvlink.generation)
    j["nvlink"] = {{"generation", m.nvlink.generation},
                   {"links", m.nvlink.links},
                   {"bandwidth_gbps", m.nvlink.bandwidthGBps}};
  if (m.mig) {
    for (const auto& p : m.mig->profiles) {
      std::vector<int> starts;
      for (int s = 0; s < m.mig->memorySlices; ++s)
        if (p.canStartAt(s)) starts.push_back(s);
      j["mig_profiles"].push_back({{"name", p.name},
                                   {"id", p.id},
                                   {"max", p.maxCount},
                                   {"sm", p.sm},
                                   {"memory_gib", p.memoryGiB},
                                   {"memory_slices", p.memorySlices},
                                   {"compute_slices", p.computeSlices},
                                   {"starts", starts},
                                   {"unconfirmed", p.unconfirmed}});
    }
  }
  return j;
}

int listModels(Context& ctx) {
  const GpuCatalog* c = ctx.catalog();
  if (!c) return kExitUsage;
  if (ctx.format == "json") {
    nlohmann::json j = nlohmann::json::array();
    for (const auto& m : c->models()) j.push_back(modelJson(*m));
    ctx.out << j.dump(2) << "\n";
    return kExitOk;
  }
  ctx.out << std::left << std::setw(16) << "MODEL" << std::setw(12) << "MEMORY" << std::setw(5)
          << "MIG" << std::setw(30) << "NVLINK"
          << "PRODUCT\n";
  for (const auto& m : c->models())
    ctx.out << std::setw(16) << m->id << std::setw(12) << orUnknown(m->memoryMiB, " MiB")
            << std::setw(5) << (m->migCapable() ? "yes" : "no") << std::setw(30) << nvlinkText(*m)
            << m->productName << "\n";
  return kExitOk;
}

void printMigTable(Context& ctx, const GpuModel& m) {
  const MigGeometry& g = *m.mig;
  ctx.out << "MIG: " << g.memorySlices << " memory slices, " << g.computeSlices
          << " compute slices; engines CE " << g.totals.ce << ", DEC " << g.totals.dec << ", JPEG "
          << g.totals.jpeg << ", OFA " << g.totals.ofa << "\n";
  ctx.out << std::left << "  " << std::setw(14) << "PROFILE" << std::setw(5) << "ID" << std::setw(5)
          << "MAX" << std::setw(6) << "SM" << std::setw(10) << "GiB" << std::setw(20)
          << "PLACEMENTS"
          << "NOTES\n";
  for (const auto& p : g.profiles) {
    std::ostringstream gib;
    gib << std::fixed << std::setprecision(2) << p.memoryGiB;
    ctx.out << "  " << std::setw(14) << p.name << std::setw(5) << p.id << std::setw(5) << p.maxCount
            << std::setw(6) << (p.sm ? std::to_string(p.sm) : "?") << std::setw(10) << gib.str()
            << std::setw(20) << placementsText(g, p)
            << (p.unconfirmed.empty() ? "" : "unconfirmed: " + join(p.unconfirmed, "; ")) << "\n";
  }
}

int showModel(Context& ctx, const std::string& name) {
  const GpuModel* m = ctx.model(name, false);
  if (!m) return kExitUsage;
  if (ctx.format == "json") {
    ctx.out << modelJson(*m).dump(2) << "\n";
    return kExitOk;
  }
  ctx.out << m->id << ": " << m->productName << " (" << m->architecture << ")\n";
  if (!m->aliases.empty()) ctx.out << "Aliases: " << join(m->aliases, ", ") << "\n";
  ctx.out << "Memory: " << orUnknown(m->memoryMiB, " MiB") << "; SMs: " << orUnknown(m->smCount, "")
          << "; PCIe gen " << m->pcieGeneration << "; NVLink: " << nvlinkText(*m) << "\n";
  if (!m->pciDeviceIds.empty())
    ctx.out << "PCI device IDs: " << join(m->pciDeviceIds, ", ") << "\n";
  if (m->mig)
    printMigTable(ctx, *m);
  else
    ctx.out << "MIG: not supported\n";
  for (const auto& u : m->unconfirmed) ctx.out << "Unconfirmed: " << u << "\n";
  if (!m->notes.empty()) ctx.out << "Notes: " << m->notes << "\n";
  return kExitOk;
}

}  // namespace

void addGpuVerbs(CLI::App& app, Context& ctx) {
  auto* gpus = app.add_subcommand("gpus", "GPU catalog: models, memory, NVLink, MIG profiles");
  gpus->require_subcommand(1);
  auto* list = gpus->add_subcommand("list", "List every GPU model of the catalog");
  list->add_option("-o,--output", ctx.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  list->callback([&ctx] { ctx.exitCode = listModels(ctx); });

  auto* show =
      gpus->add_subcommand("show", "Show one model with its MIG profile table and placements");
  auto name = std::make_shared<std::string>();
  show->add_option("MODEL", *name, "Model id, product name or alias (e.g. H100, A30-24GB)")
      ->required();
  show->add_option("-o,--output", ctx.format, "Output format")
      ->check(CLI::IsMember({"text", "json"}));
  show->callback([&ctx, name] { ctx.exitCode = showModel(ctx, *name); });
}

}  // namespace tessera::cli
