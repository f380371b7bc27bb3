#pragma once
// The agent's side of MIG apply (docs/agent.md, "MIG apply"): the layouts tesserad answers a
// telemetry push with are planned against the node's last NVML inventory and, once tesserad
// holds the node, run as `nvidia-smi mig` commands (or, in a dry run, only logged). Refusals (a
// busy instance the GPU lacks, MIG mode off, a model the agent's catalog calls otherwise) and
// waits are logged once each, not every interval.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "inventory/catalog_check.h"
#include "inventory/node_inventory.h"
#include "tessera.pb.h"

namespace tessera::cli {

enum class MigApplyMode { On, DryRun, Off };

class AgentMigApply {
 public:
  using Log = std::function<void(const std::string&)>;
  AgentMigApply(MigApplyMode mode, std::string nvidiaSmi, Log log)
      : mode_(mode), tool_(std::move(nvidiaSmi)), log_(std::move(log)) {}

  // The layouts of the last push's answer replace those of the one before.
  void take(const v1::PushTelemetryResponse& response);
  // Plans each layout against `node` and applies what may be applied; true when commands ran
  // (the caller probes the node again, so NVML's answer is what tesserad is told).
  bool apply(const NodeInventory& node, const CatalogCheck& check);
  // After a run: the layout NVML reads back on each GPU applied, against the plan.
  void readBack(const NodeInventory& node, const CatalogCheck& check);

 private:
  void note(int gpu, const std::string& message);  // logged when it differs from the last

  MigApplyMode mode_;
  std::string tool_;
  Log log_;
  std::vector<v1::MigApply> work_;
  std::vector<v1::MigApply> ran_;     // applied by the last apply(), for readBack
  std::map<int, std::string> notes_;  // per GPU: the last refusal or wait logged
};

}  // namespace tessera::cli
