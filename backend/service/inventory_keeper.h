#pragma once
// tesserad's side of node inventories (live mode): keeps the engine's model true to what the
// node agents report. A node the model lacks waits for an operator's admission; a GPU missing
// from its node's report, or reported faulty, holds the node (a GPU-fault hold for that GPU)
// until a report shows it again; a MIG layout changed on the node replaces the engine's, the
// jobs on instances that are gone being requeued with an event and a warning each. A layout the
// engine changed (a repartition) while the node's stayed is the other way round: the node is to
// follow. Its GPU holds the node (mig-reconfigure) and the node's agent, told with its telemetry
// push, applies the layout; the report that shows it lifts the hold. What each node last reported
// of its MIG layouts is kept in the database, so a repartition planned before a restart is still
// pending after it (the node's first report then is no news). Everything it does is an event in
// the log (actor "inventory").
//
// Every call comes from the backend's engine thread.
#include <map>
#include <optional>
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
  // Whether nodes' agents apply the engine's MIG layouts (off under Slurm, whose executor applies
  // them with the site's hook; then a layout the node reports always replaces the engine's).
  void setMigApply(bool on) { migApply_ = on; }
  // Holds each GPU whose engine layout the node's last report lacks (mig-reconfigure, draining)
  // and lifts the hold of one that has it now. From every cycle.
  void holdPendingLayouts(Engine& engine);
  // The same for one node, from its agent's push: the layouts it is told to apply below are then
  // those of a held node. The other nodes wait for the cycle (a push walks 8 GPUs, not all).
  void holdPendingLayout(Engine& engine, const std::string& node);
  // The layouts `node`'s agent is to apply now (empty when none, or off).
  [[nodiscard]] std::vector<MigWork> migWork(const Engine& engine, const std::string& node) const;

  // What survives a restart, as BackendExtras::meta entries (admitted nodes, held GPUs, the
  // nodes' last reported MIG layouts).
  void save(const Engine& engine, std::vector<std::pair<std::string, std::string>>& meta) const;
  void restore(const Engine& engine, const std::vector<std::pair<std::string, std::string>>& meta);

 private:
  struct Record {
    InventoryReport report;
    Seconds at = 0;
    std::vector<std::string> warnings;  // the agent's and tesserad's, from the last report
  };
  // The reported layouts of a node's MIG GPUs (by index, canonical), parsed once: every cycle
  // compares them with the engine's.
  using NodeLayouts = std::map<int, MigLayout>;
  Status check(const Engine& engine, const InventoryReport& report) const;
  void applyToModel(Engine& engine, const Node& node, const InventoryReport& report,
                    InventoryReply& reply);
  void holdMissing(Engine& engine, const Gpu& gpu, const std::string& why, InventoryReply& reply);
  void liftHold(Engine& engine, const Gpu& gpu, InventoryReply& reply);
  void followLayout(Engine& engine, const Gpu& gpu, const InventoryGpu& seen,
                    InventoryReply& reply);
  // The engine's layout of `gpu` when the node's last report shows another one (a repartition
  // the node has not applied yet); nullopt when they agree or the report says nothing of it.
  [[nodiscard]] std::optional<MigLayout> pendingLayout(const Engine& engine, const Gpu& gpu,
                                                       const NodeLayouts& reported) const;
  void holdPending(Engine& engine, const Node& node, const NodeLayouts& reported,
                   InventoryReply* reply);
  [[nodiscard]] NodeLayouts layoutsOf(const Engine& engine, const InventoryReport& report) const;
  void restoreLayouts(const Engine& engine, const std::string& stored);
  // What the GPU's node last reported as its layout (nullptr: nothing yet).
  [[nodiscard]] const MigLayout* lastReported(const Engine& engine, const Gpu& gpu) const;
  void event(Engine& engine, const std::string& line, InventoryReply& reply) const;
  // A node outside the model that is admitted (auto-admit, or by an operator before nodes
  // joined the running engine) joins it with this report; when it cannot, it stays pending.
  void joinAdmitted(Engine& engine, const InventoryReport& report, InventoryReply& reply);
  Expected<NodeJoin> join(const Engine& engine, const InventoryReport& report) const;
  [[nodiscard]] const GpuCatalog& catalog() const;

  const GpuCatalog* catalog_;
  bool autoAdmit_;
  std::map<std::string, Record> nodes_;  // by node name: every node that reported
  // By node name: what each node in the model last reported of its MIG layouts; kept across a
  // restart, which forgets nodes_ (the agents report again).
  std::map<std::string, NodeLayouts> layouts_;
  // layouts_ as save() stores it, built again only after a report changed a layout: every commit
  // stores it, and at 1,000 nodes the JSON took longer than the rest of a cycle's commit.
  mutable std::string layoutsText_;
  mutable bool layoutsChanged_ = true;
  // Nodes outside the model that were admitted but have not joined it yet (admitted before
  // nodes joined the running engine); each joins with its next report.
  std::set<std::string> admitted_;
  std::set<GpuId> held_;  // GPUs held out because their node lacks them
  bool migApply_ = false;
};

}  // namespace tessera
