#pragma once
// What a node agent reports of its hardware (ReportInventory) and what tesserad keeps of it: the
// values the RPC layer converts to and from, free of protobuf. The agent's probe names each GPU's
// catalog model and writes its MIG layout in the layout syntax; tesserad checks both against its
// own catalog and cluster (inventory_keeper.h).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/ids.h"

namespace tessera {

struct InventoryGpu {
  int index = 0;
  std::string name;   // the driver's product name ("NVIDIA H100 80GB HBM3")
  std::string model;  // the catalog model the agent matched ("H100-SXM5-80GB"); empty = unknown
  std::string uuid;
  std::string pciBusId;
  int64_t memoryMiB = 0;
  bool migEnabled = false;
  std::optional<std::string> migLayout;  // MIG mode: the instances in layout syntax ("-": none)
  // Why the GPU cannot be used although it is listed ("fallen off the bus", an NVML error);
  // empty for a healthy GPU.
  std::string fault;
};

struct InventoryReport {
  std::string node;      // the scheduler's name of the node
  std::string hostname;  // the machine that sent it (tells two agents claiming one name apart)
  std::string source;    // nvml or nvidia-smi
  std::string driverVersion;
  std::vector<InventoryGpu> gpus;
  std::vector<std::string> warnings;  // the probe's catalog check and notes, as the agent saw them
  // What a node joining the model is built from (node_join.h); 0 or empty = unknown.
  int cpus = 0;
  int64_t memoryMiB = 0;
  std::string topo;  // `nvidia-smi topo -m` text: path classes, CPU and NUMA affinity
  std::string leaf;  // the fabric leaf it hangs under; empty: a leaf of its own
  std::string pool;
};

class Cluster;

// A node the cluster model lacked joining it (an operator's admission, or inventory.auto_admit):
// the model with the node added, which the backend stores and rebuilds its engine on.
struct NodeJoin {
  std::string node;
  std::string message;  // what was done, in the operator's words
  std::shared_ptr<const Cluster> cluster;
};

enum class Admission : uint8_t { Known, Pending, Admitted };
// "known" (in the cluster model), "pending-admission", "admitted": as sent and printed.
const char* admissionName(Admission a);
std::optional<Admission> admissionFromName(std::string_view name);

// What tesserad answers an agent: whether the node is in the model, what changed and what it
// found doubtful (also logged and kept with the node).
struct InventoryReply {
  Admission admission = Admission::Known;
  std::vector<std::string> changes;
  std::vector<std::string> warnings;
  std::optional<NodeJoin> join;  // admitted (auto-admit, or earlier by an operator): joins now
};

// A MIG layout tesserad wants on one of a node's GPUs (the engine's, after a repartition) that the
// node's last report did not show: the node's agent applies it (docs/agent.md, "MIG apply").
struct MigWork {
  int gpu = 0;          // the GPU's index on the node
  std::string model;    // its catalog model: the layout's profile names are that model's
  std::string layout;   // the planned layout, busy instances marked * (they must stay as they are)
  bool drained = false;  // tesserad holds the node: nothing new starts there, the agent may apply
  std::string waiting;   // why not yet, when not drained
};

// One reporting node as `tessera ctl node list` shows it.
struct NodeInventoryView {
  std::string node, hostname, source, driverVersion;
  Admission admission = Admission::Known;
  Seconds reportedAt = 0;
  int gpus = 0;
  std::vector<std::string> warnings;     // catalog mismatches and tesserad's own findings
  std::vector<std::string> missingGpus;  // "gpu-a/1": held out because the node lacks them
};

}  // namespace tessera
