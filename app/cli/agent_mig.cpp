#include "cli/agent_mig.h"

#include "core/strings.h"
#include "inventory/inventory_output.h"
#include "inventory/mig_apply.h"
#include "inventory/nvsmi_probe.h"
#include "topology/mig_layout.h"

namespace tessera::cli {

namespace {

std::string indented(const std::string& lines) {
  std::string out;
  for (const auto& line : split(lines, '\n'))
    if (!line.empty()) out += "\n  " + std::string(line);
  return out;
}

const GpuInventory* gpuAt(const NodeInventory& node, int index) {
  for (const auto& g : node.gpus)
    if (g.index == index) return &g;
  return nullptr;
}

// The GPU's catalog model as the agent matched it, when it is the one tesserad planned for.
Expected<const GpuModel*> modelFor(const NodeInventory& node, const CatalogCheck& check,
                                   const v1::MigApply& w) {
  for (size_t i = 0; i < node.gpus.size(); ++i) {
    if (node.gpus[i].index != static_cast<int>(w.gpu())) continue;
    const GpuModel* m = i < check.models.size() ? check.models[i].get() : nullptr;
    if (!m || m->id != w.model())
      return Error::of(literal("tesserad planned it as " + w.model() + ", the agent's catalog " +
                               (m ? "calls it " + m->id : std::string("does not know it"))));
    return m;
  }
  return Error::of(literal("the node has no such GPU"));
}

Expected<MigApplyPlan> planFor(const NodeInventory& node, const CatalogCheck& check,
                               const v1::MigApply& w) {
  TESSERA_TRY(model, modelFor(node, check, w));
  TESSERA_TRY(target, parseMigLayout(*model, w.layout()));
  return planMigApply(*gpuAt(node, static_cast<int>(w.gpu())), *model, target);
}

std::string what(const v1::MigApply& w) {
  return "MIG apply on GPU " + std::to_string(w.gpu()) + " (" + w.layout() + ")";
}

}  // namespace

void AgentMigApply::take(const v1::PushTelemetryResponse& response) {
  work_.assign(response.mig_apply().begin(), response.mig_apply().end());
}

void AgentMigApply::note(int gpu, const std::string& message) {
  if (notes_[gpu] != message) log_(message);
  notes_[gpu] = message;
}

bool AgentMigApply::apply(const NodeInventory& node, const CatalogCheck& check) {
  ran_.clear();
  if (mode_ == MigApplyMode::Off) return false;
  for (const auto& w : work_) {
    const int gpu = static_cast<int>(w.gpu());
    auto plan = planFor(node, check, w);
    if (!plan) {
      note(gpu, what(w) + " refused: " + plan.error().str());
      continue;
    }
    if (!w.drained()) {
      note(gpu, what(w) + " waits: " + w.waiting());
      continue;
    }
    const std::string commands = formatMigCommands(tool_, *plan);
    if (mode_ == MigApplyMode::DryRun) {
      note(gpu, what(w) + ", dry run; it would run:" + indented(commands));
      continue;
    }
    log_(what(w) + ": running" + indented(commands));
    const Status done = runMigApply(liveNvidiaSmi(tool_), tool_, *plan,
                                    [&](const std::string& line, const std::string& out) {
                                      log_("$ " + line + indented(out));
                                    });
    // A failure is tried again with the next push's answer; the same failure is logged once.
    if (!done) note(gpu, what(w) + " failed: " + done.error().str());
    else notes_.erase(gpu);
    ran_.push_back(w);
  }
  work_.clear();
  return !ran_.empty();
}

void AgentMigApply::readBack(const NodeInventory& node, const CatalogCheck& check) {
  for (const auto& w : ran_) {
    auto model = modelFor(node, check, w);
    const GpuInventory* gpu = gpuAt(node, static_cast<int>(w.gpu()));
    if (!model || !gpu) continue;
    auto now = migLayoutText(*gpu, **model);
    auto planned = parseMigLayout(**model, w.layout());
    const std::string seen = now ? *now : now.error().str();
    const bool same = now && planned &&
                      seen == (planned->empty() ? std::string("-") : formatMigLayout(**model, *planned));
    log_(what(w) + ": NVML reads back " + seen +
         (same ? std::string(" (as planned)") : std::string(", not as planned")));
  }
}

}  // namespace tessera::cli
