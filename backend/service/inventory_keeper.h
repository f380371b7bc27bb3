#pragma once
// tesserad's side of node inventories (live mode): keeps the engine's model true to what the
// node agents report. A node the model lacks waits for an operator's admission; a GPU missing
// from its node's report, or reported faulty, holds the node (a GPU-fault hold for that GPU)
// until a report shows it again; a MIG layout changed on the node replaces the engine's, the
// jobs on instances that are gone being requeued with an event and a warning each. Everything
// it does is an event in the log (actor "inventory").
//
// Every call comes from the backend's engine thread.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/expected.h"
#include "scheduler/engine.h"
#include "service/node_report.h"
#include "topology/gpu_catalog.h"

namespace tessera {

class InventoryKeeper {
 public:
  InventoryKeeper(const GpuCatalog* catalog, bool autoAdmit)
      : catalog_(catalog), autoAdmit_(autoAdmit) {}

  // Checks the report (unknown model, bad layout, a name another host claims) and applies it.
  // A refusal changes nothing; its message names the field.
  Expected<InventoryReply> ingest(Engine& engine, const InventoryReport& report);
  // An operator admits a node that reported itself: the model with the node added
  // (node_join.h), audited as `actor`'s command; NotFound when no such node reported,
  // WrongState when it is already in the model or its inventory cannot make a node.
  Expected<NodeJoin> admit(Engine& engine, const std::string& node, const std::string& actor);
  [[nodiscard]] std::vector<NodeInventoryView> list(const Engine& engine) const;

  // What survives a restart, as BackendExtras::meta entries (admitted nodes, held GPUs).
  void save(std::vector<std::pair<std::string, std::string>>& meta) const;
  void restore(const std::vector<std::pair<std::string, std::string>>& meta);

 private:
  struct Record {
    InventoryReport report;
    Seconds at = 0;
    std::vector<std::string> warnings;  // the agent's and tesserad's, from the last report
  };
  Status check(const Engine& engine, const InventoryReport& report) const;
  void applyToModel(Engine& engine, const Node& node, const InventoryReport& report,
                    InventoryReply& reply);
  void holdMissing(Engine& engine, const Gpu& gpu, const std::string& why, InventoryReply& reply);
  void liftHold(Engine& engine, const Gpu& gpu, InventoryReply& reply);
  void followLayout(Engine& engine, const Gpu& gpu, const InventoryGpu& seen,
                    InventoryReply& reply);
  void event(Engine& engine, const std::string& line, InventoryReply& reply) const;
  // A node outside the model that is admitted (auto-admit, or by an operator before nodes
  // joined the running engine) joins it with this report; when it cannot, it stays pending.
  void joinAdmitted(Engine& engine, const InventoryReport& report, InventoryReply& reply);
  Expected<NodeJoin> join(const Engine& engine, const InventoryReport& report) const;
  [[nodiscard]] const GpuCatalog& catalog() const;

  const GpuCatalog* catalog_;
  bool autoAdmit_;
  std::map<std::string, Record> nodes_;  // by node name: every node that reported
  // Nodes outside the model that were admitted but have not joined it yet (admitted before
  // nodes joined the running engine); each joins with its next report.
  std::set<std::string> admitted_;
  std::set<GpuId> held_;  // GPUs held out because their node lacks them
};

}  // namespace tessera
