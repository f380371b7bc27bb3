#pragma once
// The cluster graph: fabric tree (spine -> leaf -> node), NVLink domains (single-node NVSwitch
// boards, bridged pairs, multi-node NVLink racks), nodes with NUMA zones, PCIe switches, NICs and
// GPUs, and each GPU's sharing mode. Built once by the spec loader, then read-only: the engine
// copies occupancy into its own snapshot, never into this structure.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "topology/gpu_model.h"
#include "topology/links.h"
#include "topology/mig_layout.h"

namespace tessera {

using NodeId = uint32_t;
using GpuId = uint32_t;
using SwitchId = int32_t;
using DomainId = int32_t;
inline constexpr int32_t kNone = -1;

enum class NodeState : uint8_t { Up, Draining, Down };
const char* nodeStateName(NodeState s);

enum class SharingMode : uint8_t { Exclusive, Mig, TimeSliced, Mps };
const char* sharingModeName(SharingMode m);

// Who may share one MPS server. MPS gives its clients no fault isolation (one client's fault
// ends every client of the server), so by default only jobs of one team share it.
enum class MpsCoLocation : uint8_t { Team, User, Any };
const char* mpsCoLocationName(MpsCoLocation c);

// Which GPUs of a node a new MPS client may join. All: any MPS GPU with room (each GPU's MPS
// daemon is independent, as CUDA has it). One: once clients run on the node, only the GPUs
// already serving them - Slurm 22.05's gres/mps default (one_sharing), which leaves a client
// pinned to an idle GPU pending; `Flags=all_sharing` in gres.conf lifts it (docs/slurm.md).
enum class MpsNodeSharing : uint8_t { All, One };
const char* mpsNodeSharingName(MpsNodeSharing s);

// An MPS control daemon on the GPU (mode Mps), or one per MIG instance (mode Mig with `enabled`).
struct MpsPolicy {
  bool enabled = false;
  MpsCoLocation coLocation = MpsCoLocation::Team;
  // Sum of the clients' active-thread percentages one server may hand out. NVIDIA lets the sum
  // exceed 100 (clients then contend for SMs); 100 keeps every client's share guaranteed.
  int threadBudget = 100;
  MpsNodeSharing nodeSharing = MpsNodeSharing::All;  // of the GPU's own server (not MIG ones)
  friend bool operator==(const MpsPolicy&, const MpsPolicy&) = default;
};

struct GpuSharing {
  SharingMode mode = SharingMode::Exclusive;
  MigLayout mig;     // GPU instances when mode == Mig
  int replicas = 1;  // time-sliced replicas (fractional shares) when mode == TimeSliced
  MpsPolicy mps;     // enabled when mode == Mps, or mode == Mig with MPS inside the instances

  // Whether MPS clients may land here (on the GPU, or in its MIG instances).
  [[nodiscard]] bool runsMps() const { return mps.enabled; }
  // Whether MIG-profile requests may take its instances: not when MPS servers hold them.
  [[nodiscard]] bool offersMigInstances() const { return mode == SharingMode::Mig && !mps.enabled; }
};

struct NumaZone {
  int id = 0;
  std::vector<int> cpus;  // CPU ids (empty when unknown)
  std::vector<int> gpus;  // local GPU indices
};

struct PcieSwitch {
  int id = 0;
  int numa = kNone;
  std::vector<int> gpus;  // local GPU indices
  std::vector<int> nics;  // indices into NodeHardware::nics
};

struct Nic {
  std::string name;  // "mlx5_0"
  int speedGbps = 0;
  int numa = kNone;
  int pcieSwitch = kNone;
};

enum class NvlinkMode : uint8_t { None, NvSwitch, Bridged };

// What every node built from one template shares: kept once per template, not per node.
struct NodeHardware {
  std::string templateName;
  std::shared_ptr<const GpuModel> gpuModel;
  int gpuCount = 0;
  int cpus = 0;
  int64_t memoryMiB = 0;
  std::vector<NumaZone> numa;
  std::vector<PcieSwitch> pcieSwitches;
  std::vector<Nic> nics;
  NvlinkMode nvlink = NvlinkMode::None;
  std::vector<std::vector<int>> nvlinkGroups;  // bridged GPU groups (NvlinkMode::Bridged)
  std::vector<GpuLink> links;                  // gpuCount x gpuCount, row-major
  std::vector<GpuLink> nicLinks;               // gpuCount x nics.size(), row-major
  std::vector<int> gpuNuma;                    // per local GPU
  std::vector<int> gpuPcieSwitch;              // per local GPU (kNone when unknown)
  std::string topoText;  // the nvidia-smi topo -m text the template was built from, if any

  [[nodiscard]] const GpuLink& link(int a, int b) const {
    return links[static_cast<size_t>(a * gpuCount + b)];
  }
  // Path from a GPU to a NIC (GPUDirect RDMA quality): PIX/PXB behind one switch, NODE, SYS.
  [[nodiscard]] const GpuLink& nicLink(int gpu, int nic) const {
    return nicLinks[static_cast<size_t>(gpu) * nics.size() + static_cast<size_t>(nic)];
  }
};

struct Gpu {
  GpuId id = 0;
  NodeId node = 0;
  int index = 0;  // index within its node (nvidia-smi GPU number)
  DomainId nvlinkDomain = kNone;
  GpuSharing sharing;
};

struct Node {
  NodeId id = 0;
  std::string name;
  std::shared_ptr<const NodeHardware> hw;
  std::string pool;
  std::map<std::string, std::string> labels;
  NodeState state = NodeState::Up;
  std::string driverVersion;
  SwitchId leaf = kNone;
  GpuId firstGpu = 0;

  [[nodiscard]] int gpuCount() const { return hw->gpuCount; }
  [[nodiscard]] const GpuModel& gpuModel() const { return *hw->gpuModel; }
};

enum class NvlinkDomainKind : uint8_t { NvSwitchBoard, Bridge, MultiNodeRack };
const char* nvlinkDomainKindName(NvlinkDomainKind k);

struct NvlinkDomain {
  DomainId id = 0;
  std::string name;
  NvlinkDomainKind kind = NvlinkDomainKind::NvSwitchBoard;
  std::vector<GpuId> gpus;
  std::vector<NodeId> nodes;
};

enum class SwitchTier : uint8_t { Leaf, Spine };

struct FabricSwitch {
  SwitchId id = 0;
  std::string name;
  SwitchTier tier = SwitchTier::Leaf;
  SwitchId parent = kNone;         // a leaf's spine
  std::vector<SwitchId> children;  // a spine's leafs
  std::vector<NodeId> nodes;       // a leaf's nodes
};

class Cluster {
 public:
  std::string name;

  [[nodiscard]] const std::vector<Node>& nodes() const { return nodes_; }
  [[nodiscard]] const std::vector<Gpu>& gpus() const { return gpus_; }
  [[nodiscard]] const std::vector<FabricSwitch>& switches() const { return switches_; }
  [[nodiscard]] const std::vector<NvlinkDomain>& nvlinkDomains() const { return domains_; }
  [[nodiscard]] std::vector<std::string> pools() const;

  [[nodiscard]] const Node& node(NodeId id) const { return nodes_[id]; }
  [[nodiscard]] const Gpu& gpu(GpuId id) const { return gpus_[id]; }
  // "node/index", how commands, messages and stored state name a GPU.
  [[nodiscard]] std::string gpuName(GpuId id) const {
    return nodes_[gpus_[id].node].name + "/" + std::to_string(gpus_[id].index);
  }
  [[nodiscard]] const GpuModel& modelOf(GpuId id) const {
    return *nodes_[gpus_[id].node].hw->gpuModel;
  }
  [[nodiscard]] const Node* findNode(std::string_view name) const;
  [[nodiscard]] const FabricSwitch* findSwitch(std::string_view name) const;
  // GPU by "node/index", e.g. "dgx-a001/3".
  [[nodiscard]] const Gpu* findGpu(std::string_view nodeAndIndex) const;

  [[nodiscard]] SwitchId leafOf(NodeId n) const { return nodes_[n].leaf; }
  [[nodiscard]] SwitchId spineOf(NodeId n) const;
  // Path class between two GPUs: the node's matrix within a node, NV# between trays of one
  // multi-node NVLink rack, nullopt across the network.
  [[nodiscard]] std::optional<GpuLink> linkBetween(GpuId a, GpuId b) const;
  // Tightest level containing both GPUs (Gpu, Node, NvlinkDomain, Leaf, Spine, Cluster).
  [[nodiscard]] TopologyLevel commonLevel(GpuId a, GpuId b) const;
  // Tightest level containing every GPU of the set (Gpu for a set of one).
  [[nodiscard]] TopologyLevel spanOf(const std::vector<GpuId>& gpus) const;

  // Building (used by the spec loader and tests).
  SwitchId addSwitch(std::string name, SwitchTier tier, SwitchId parent);
  NodeId addNode(Node node);  // assigns id, firstGpu and creates its GPUs
  DomainId addNvlinkDomain(std::string name, NvlinkDomainKind kind, const std::vector<GpuId>& gpus);
  Gpu& mutableGpu(GpuId id) { return gpus_[id]; }
  Node& mutableNode(NodeId id) { return nodes_[id]; }

 private:
  std::vector<Node> nodes_;
  std::vector<Gpu> gpus_;
  std::vector<FabricSwitch> switches_;
  std::vector<NvlinkDomain> domains_;
  std::unordered_map<std::string, NodeId> nodeByName_;
  std::unordered_map<std::string, SwitchId> switchByName_;
};

}  // namespace tessera
