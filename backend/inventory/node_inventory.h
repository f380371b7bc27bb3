#pragma once
// What one node's GPUs are, as the hardware reports it (NVML or nvidia-smi): the value the probe
// builds, checks against the GPU catalog and prints as the node's cluster-spec entry.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "topology/gpu_model.h"
#include "topology/links.h"

namespace tessera {

struct MigPlacement {
  int start = 0;
  int size = 0;
  friend bool operator==(const MigPlacement&, const MigPlacement&) = default;
};

// One GPU-instance profile as the driver describes it. Placements are in memory slices.
struct MigProfileInfo {
  int id = -1;
  std::string name;  // "1g.10gb" from nvidia-smi; NVML's v1 struct has no name, so empty there
  int computeSlices = 0;
  int instanceCount = 0;
  int sm = 0;
  int memoryMiB = 0;
  MigEngines engines;
  std::vector<MigPlacement> placements;
};

struct ComputeInstanceInfo {
  int id = -1;
  int profileId = -1;
  MigPlacement placement;  // in compute slices of its GPU instance
};

struct GpuInstanceInfo {
  int id = -1;
  int profileId = -1;
  MigPlacement placement;  // in memory slices
  std::vector<ComputeInstanceInfo> computeInstances;
};

struct MigDeviceInfo {
  std::string uuid;  // "MIG-...": what CUDA_VISIBLE_DEVICES takes
  int gpuInstanceId = -1;
  int computeInstanceId = -1;
};

// One active NVLink and what is at its other end: a GPU of this node, or (NVSwitch boards) a
// switch, whose bus id matches no GPU.
struct NvlinkPeer {
  int link = 0;
  std::string peerBusId;
};

struct MigModeInfo {
  bool supported = false;  // false: the GPU or driver has no MIG (NVML answered Not Supported)
  bool current = false;
  bool pending = false;
};

struct GpuInventory {
  int index = 0;
  std::string name;          // "NVIDIA H100 80GB HBM3"
  std::string architecture;  // "Hopper" (nvidia-smi only)
  std::string uuid;
  std::string pciBusId;      // "00000000:00:06.0"
  uint32_t pciDeviceId = 0;  // 0x233010DE: device id << 16 | vendor id
  int64_t memoryMiB = 0;
  MigModeInfo mig;
  std::vector<MigProfileInfo> profiles;
  std::vector<GpuInstanceInfo> gpuInstances;
  std::vector<MigDeviceInfo> migDevices;
  std::vector<NvlinkPeer> nvlinks;
  int numaNode = -1;        // -1 = unknown
  std::string cpuAffinity;  // cpulist, "" = unknown
  // Why the GPU cannot be used although the driver lists it (NVML: GPU is lost, fallen off the
  // bus); empty for a healthy GPU. Nothing but its index is known of a faulted GPU.
  std::string fault;
};

struct NodeInventory {
  std::string source;  // "nvml" or "nvidia-smi"
  std::string hostname;
  std::string driverVersion;
  std::string cudaVersion;  // nvidia-smi only
  int cpus = 0;             // the host's online CPUs (0 = unknown)
  int64_t memoryMiB = 0;    // the host's memory (MemTotal; 0 = unknown)
  std::vector<GpuInventory> gpus;
  // Path classes between GPUs as `nvidia-smi topo -m` prints them, [gpu][gpu]; empty = unknown.
  std::vector<std::vector<GpuLink>> links;
  // Facts worth telling the operator that are not errors ("GPU 0: MIG not supported").
  std::vector<std::string> notes;
};

// "0x233010DE", the catalog's spelling.
std::string pciDeviceIdText(uint32_t id);

// GPU or compute instances in the order of their first slice: how nvidia-smi lists them and
// layouts are written, whatever order the driver enumerated them in.
template <class Instances>
void sortByPlacement(Instances& list) {
  std::sort(list.begin(), list.end(),
            [](const auto& a, const auto& b) { return a.placement.start < b.placement.start; });
}

}  // namespace tessera
