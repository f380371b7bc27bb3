#include "inventory/nvml_probe.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#include "inventory/nvml_abi.h"
#include "inventory/nvml_api.h"
#include "inventory/sysfs_numa.h"

namespace tessera {

namespace {

// Enumeration ends at INVALID_ARGUMENT; this bound only guards against a library that never says
// so (driver 580 knows 20 profile indexes).
constexpr unsigned kMaxProfileIndexes = 64;
constexpr unsigned kMaxComputeProfileIndexes = 16;
constexpr unsigned kMaxInstancesPerProfile = kMaxMemorySlices;
constexpr unsigned kNotWritten = ~0u;

class NvmlProber {
 public:
  NvmlProber(const NvmlApi& api, const NvmlProbeOptions& options) : api_(api), options_(options) {}

  Expected<NodeInventory> run() {
    NodeInventory node;
    node.source = "nvml";
    std::array<char, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE> version{};
    TESSERA_CHECK(call(api_.nvmlSystemGetDriverVersion(version.data(), version.size()),
                       "nvmlSystemGetDriverVersion"));
    node.driverVersion = version.data();
    unsigned count = 0;
    TESSERA_CHECK(call(api_.nvmlDeviceGetCount_v2(&count), "nvmlDeviceGetCount_v2"));
    for (unsigned i = 0; i < count; ++i) {
      lost_ = false;
      nvmlDevice_t device = nullptr;
      auto gpu = [&]() -> Expected<GpuInventory> {
        TESSERA_CHECK(call(api_.nvmlDeviceGetHandleByIndex_v2(i, &device),
                           "nvmlDeviceGetHandleByIndex_v2", static_cast<int>(i)));
        return readGpu(device, static_cast<int>(i), node);
      }();
      // A GPU that fell off the bus is listed with its fault, not a failed probe: tesserad must
      // learn of it to hold it out. Any other error fails the probe.
      if (!gpu && !lost_) return gpu.error();
      node.gpus.push_back(gpu ? std::move(*gpu) : lostGpu(static_cast<int>(i), gpu.error()));
      devices_.push_back(device);
    }
    readLinkMatrix(node);
    return node;
  }

 private:
  Status call(nvmlReturn_t r, const char* name, int gpu = -1) const {
    if (r == NVML_SUCCESS) return okStatus();
    return failure(r, name, gpu);
  }

  static GpuInventory lostGpu(int index, const Error& why) {
    GpuInventory gpu;
    gpu.index = index;
    gpu.fault = "fallen off the bus (" + why.str() + ")";
    return gpu;
  }

  Error failure(nvmlReturn_t r, const char* name, int gpu) const {
    lost_ = lost_ || r == NVML_ERROR_GPU_IS_LOST;
    const std::string where = gpu >= 0 ? " (GPU " + std::to_string(gpu) + ")" : "";
    return Error{"NVML " + std::string(name) + where + " failed: " + api_.describe(r), {}};
  }

  Expected<GpuInventory> readGpu(nvmlDevice_t device, int index, NodeInventory& node) const {
    GpuInventory gpu;
    gpu.index = index;
    TESSERA_CHECK(readIdentity(device, gpu));
    TESSERA_CHECK(readMigMode(device, gpu, node));
    if (gpu.mig.supported) TESSERA_CHECK(readProfiles(device, gpu));
    if (gpu.mig.current) {
      TESSERA_CHECK(readGpuInstances(device, gpu));
      TESSERA_CHECK(readMigDevices(device, gpu));
    }
    readNvlinks(device, gpu);
    const SysfsNuma numa = readSysfsNuma(options_.sysfsRoot, gpu.pciBusId);
    gpu.numaNode = numa.node;
    gpu.cpuAffinity = numa.cpuList;
    return gpu;
  }

  Status readIdentity(nvmlDevice_t device, GpuInventory& gpu) const {
    std::array<char, NVML_DEVICE_NAME_BUFFER_SIZE> name{};
    TESSERA_CHECK(call(api_.nvmlDeviceGetName(device, name.data(), name.size()),
                       "nvmlDeviceGetName", gpu.index));
    gpu.name = name.data();
    std::array<char, NVML_DEVICE_UUID_BUFFER_SIZE> uuid{};
    TESSERA_CHECK(call(api_.nvmlDeviceGetUUID(device, uuid.data(), uuid.size()),
                       "nvmlDeviceGetUUID", gpu.index));
    gpu.uuid = uuid.data();
    nvmlPciInfo_t pci{};
    TESSERA_CHECK(
        call(api_.nvmlDeviceGetPciInfo_v3(device, &pci), "nvmlDeviceGetPciInfo_v3", gpu.index));
    gpu.pciBusId = std::string(pci.busId, strnlen(pci.busId, sizeof pci.busId));
    gpu.pciDeviceId = pci.pciDeviceId;
    nvmlMemory_t memory{};
    TESSERA_CHECK(
        call(api_.nvmlDeviceGetMemoryInfo(device, &memory), "nvmlDeviceGetMemoryInfo", gpu.index));
    gpu.memoryMiB = static_cast<int64_t>(memory.total >> 20);
    return okStatus();
  }

  Status readMigMode(nvmlDevice_t device, GpuInventory& gpu, NodeInventory& node) const {
    unsigned current = 0;
    unsigned pending = 0;
    const nvmlReturn_t r = api_.nvmlDeviceGetMigMode(device, &current, &pending);
    if (r == NVML_ERROR_NOT_SUPPORTED) {
      node.notes.push_back("GPU " + std::to_string(gpu.index) + " (" + gpu.name +
                           "): MIG not supported by this GPU or driver (nvmlDeviceGetMigMode: " +
                           api_.describe(r) + ")");
      return okStatus();
    }
    TESSERA_CHECK(call(r, "nvmlDeviceGetMigMode", gpu.index));
    gpu.mig = MigModeInfo{true, current != 0, pending != 0};
    return okStatus();
  }

  Status readProfiles(nvmlDevice_t device, GpuInventory& gpu) const {
    for (unsigned p = 0; p < kMaxProfileIndexes; ++p) {
      nvmlGpuInstanceProfileInfo_t info{};
      const nvmlReturn_t r = api_.nvmlDeviceGetGpuInstanceProfileInfo(device, p, &info);
      if (r == NVML_ERROR_INVALID_ARGUMENT) break;  // past the last index this driver knows
      if (r == NVML_ERROR_NOT_SUPPORTED) continue;  // a profile this GPU lacks
      TESSERA_CHECK(call(r, "nvmlDeviceGetGpuInstanceProfileInfo", gpu.index));
      TESSERA_TRY(placements, readPlacements(device, info.id, gpu.index));
      gpu.profiles.push_back(profileOf(info, std::move(placements)));
    }
    return okStatus();
  }

  static MigProfileInfo profileOf(const nvmlGpuInstanceProfileInfo_t& info,
                                  std::vector<MigPlacement> placements) {
    MigProfileInfo profile;
    profile.id = static_cast<int>(info.id);
    profile.computeSlices = static_cast<int>(info.sliceCount);
    profile.instanceCount = static_cast<int>(info.instanceCount);
    profile.sm = static_cast<int>(info.multiprocessorCount);
    profile.memoryMiB = static_cast<int>(info.memorySizeMB);
    profile.engines =
        MigEngines{static_cast<int>(info.copyEngineCount), static_cast<int>(info.decoderCount),
                   static_cast<int>(info.encoderCount), static_cast<int>(info.jpegCount),
                   static_cast<int>(info.ofaCount)};
    profile.placements = std::move(placements);
    return profile;
  }

  // NVML may leave the count as passed when it writes fewer entries, so unwritten entries are
  // recognised by a sentinel rather than trusted from the count.
  Expected<std::vector<MigPlacement>> readPlacements(nvmlDevice_t device, unsigned profileId,
                                                     int gpu) const {
    std::array<nvmlGpuInstancePlacement_t, kMaxMemorySlices> raw{};
    raw.fill({kNotWritten, kNotWritten});
    unsigned count = raw.size();
    TESSERA_CHECK(call(
        api_.nvmlDeviceGetGpuInstancePossiblePlacements_v2(device, profileId, raw.data(), &count),
        "nvmlDeviceGetGpuInstancePossiblePlacements_v2", gpu));
    std::vector<MigPlacement> placements;
    for (unsigned i = 0; i < std::min<unsigned>(count, raw.size()); ++i) {
      if (raw[i].start == kNotWritten) break;
      placements.push_back({static_cast<int>(raw[i].start), static_cast<int>(raw[i].size)});
    }
    return placements;
  }

  Status readGpuInstances(nvmlDevice_t device, GpuInventory& gpu) const {
    for (const MigProfileInfo& profile : gpu.profiles) {
      std::array<nvmlGpuInstance_t, kMaxInstancesPerProfile> handles{};
      unsigned count = handles.size();
      TESSERA_CHECK(call(api_.nvmlDeviceGetGpuInstances(device, static_cast<unsigned>(profile.id),
                                                        handles.data(), &count),
                         "nvmlDeviceGetGpuInstances", gpu.index));
      for (unsigned i = 0; i < std::min<unsigned>(count, handles.size()) && handles[i]; ++i) {
        TESSERA_TRY(instance, readGpuInstance(handles[i], gpu.index));
        gpu.gpuInstances.push_back(std::move(instance));
      }
    }
    sortByPlacement(gpu.gpuInstances);
    return okStatus();
  }

  Expected<GpuInstanceInfo> readGpuInstance(nvmlGpuInstance_t handle, int gpu) const {
    nvmlGpuInstanceInfo_t info{};
    TESSERA_CHECK(call(api_.nvmlGpuInstanceGetInfo(handle, &info), "nvmlGpuInstanceGetInfo", gpu));
    GpuInstanceInfo instance;
    instance.id = static_cast<int>(info.id);
    instance.profileId = static_cast<int>(info.profileId);
    instance.placement = {static_cast<int>(info.placement.start),
                          static_cast<int>(info.placement.size)};
    for (unsigned p = 0; p < kMaxComputeProfileIndexes; ++p) {
      nvmlComputeInstanceProfileInfo_t profile{};
      const nvmlReturn_t r = api_.nvmlGpuInstanceGetComputeInstanceProfileInfo(
          handle, p, NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED, &profile);
      if (r == NVML_ERROR_INVALID_ARGUMENT) break;
      if (r == NVML_ERROR_NOT_SUPPORTED) continue;
      TESSERA_CHECK(call(r, "nvmlGpuInstanceGetComputeInstanceProfileInfo", gpu));
      TESSERA_CHECK(readComputeInstances(handle, profile.id, gpu, instance));
    }
    sortByPlacement(instance.computeInstances);
    return instance;
  }

  Status readComputeInstances(nvmlGpuInstance_t gi, unsigned profileId, int gpu,
                              GpuInstanceInfo& instance) const {
    std::array<nvmlComputeInstance_t, kMaxInstancesPerProfile> handles{};
    unsigned count = handles.size();
    TESSERA_CHECK(
        call(api_.nvmlGpuInstanceGetComputeInstances(gi, profileId, handles.data(), &count),
             "nvmlGpuInstanceGetComputeInstances", gpu));
    for (unsigned i = 0; i < std::min<unsigned>(count, handles.size()) && handles[i]; ++i) {
      nvmlComputeInstanceInfo_t info{};
      TESSERA_CHECK(call(api_.nvmlComputeInstanceGetInfo(handles[i], &info),
                         "nvmlComputeInstanceGetInfo", gpu));
      instance.computeInstances.push_back(
          {static_cast<int>(info.id),
           static_cast<int>(info.profileId),
           {static_cast<int>(info.placement.start), static_cast<int>(info.placement.size)}});
    }
    return okStatus();
  }

  Status readMigDevices(nvmlDevice_t device, GpuInventory& gpu) const {
    unsigned max = 0;
    TESSERA_CHECK(call(api_.nvmlDeviceGetMaxMigDeviceCount(device, &max),
                       "nvmlDeviceGetMaxMigDeviceCount", gpu.index));
    for (unsigned i = 0; i < max; ++i) {
      nvmlDevice_t mig = nullptr;
      const nvmlReturn_t r = api_.nvmlDeviceGetMigDeviceHandleByIndex(device, i, &mig);
      if (r == NVML_ERROR_NOT_FOUND) continue;  // a free slot in the MIG device table
      TESSERA_CHECK(call(r, "nvmlDeviceGetMigDeviceHandleByIndex", gpu.index));
      std::array<char, NVML_DEVICE_UUID_BUFFER_SIZE> uuid{};
      unsigned giId = 0;
      unsigned ciId = 0;
      TESSERA_CHECK(call(api_.nvmlDeviceGetUUID(mig, uuid.data(), uuid.size()),
                         "nvmlDeviceGetUUID (MIG device)", gpu.index));
      TESSERA_CHECK(call(api_.nvmlDeviceGetGpuInstanceId(mig, &giId), "nvmlDeviceGetGpuInstanceId",
                         gpu.index));
      TESSERA_CHECK(call(api_.nvmlDeviceGetComputeInstanceId(mig, &ciId),
                         "nvmlDeviceGetComputeInstanceId", gpu.index));
      gpu.migDevices.push_back({uuid.data(), static_cast<int>(giId), static_cast<int>(ciId)});
    }
    return okStatus();
  }

  // PCIe cards and VMs answer an error for every link (the recorded H100 VM did): no NVLink.
  void readNvlinks(nvmlDevice_t device, GpuInventory& gpu) const {
    for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
      int active = 0;
      if (api_.nvmlDeviceGetNvLinkState(device, link, &active) != NVML_SUCCESS) continue;
      if (active != NVML_FEATURE_ENABLED) continue;
      nvmlPciInfo_t peer{};
      if (api_.nvmlDeviceGetNvLinkRemotePciInfo_v2(device, link, &peer) != NVML_SUCCESS) continue;
      gpu.nvlinks.push_back({static_cast<int>(link),
                             std::string(peer.busId, strnlen(peer.busId, sizeof peer.busId))});
    }
  }

  void readLinkMatrix(NodeInventory& node) const {
    const size_t n = node.gpus.size();
    for (const auto& g : node.gpus)
      if (!g.fault.empty()) {
        node.notes.push_back("PCIe relations unknown: GPU " + std::to_string(g.index) + " " +
                             g.fault);
        return;
      }
    node.links.assign(n, std::vector<GpuLink>(n, GpuLink{LinkKind::Self, 0}));
    for (size_t a = 0; a < n; ++a) {
      for (size_t b = 0; b < n; ++b) {
        if (a == b) continue;
        const int nvlinks = nvlinksBetween(node.gpus[a], node.gpus[b], node);
        if (nvlinks > 0) {
          node.links[a][b] = GpuLink{LinkKind::NVLink, static_cast<uint8_t>(nvlinks)};
          continue;
        }
        int level = 0;
        const nvmlReturn_t r =
            api_.nvmlDeviceGetTopologyCommonAncestor(devices_[a], devices_[b], &level);
        if (r != NVML_SUCCESS) {
          node.notes.push_back(
              "PCIe relations unknown: " +
              failure(r, "nvmlDeviceGetTopologyCommonAncestor", static_cast<int>(a)).message);
          node.links.clear();
          return;
        }
        node.links[a][b] = linkOfLevel(level);
      }
    }
  }

  // Links straight to the other GPU, or (NVSwitch boards) the links both have into switches.
  static int nvlinksBetween(const GpuInventory& a, const GpuInventory& b,
                            const NodeInventory& node) {
    const auto isGpu = [&node](const std::string& bus) {
      return std::any_of(node.gpus.begin(), node.gpus.end(),
                         [&bus](const GpuInventory& g) { return g.pciBusId == bus; });
    };
    int direct = 0;
    int aSwitch = 0;
    for (const auto& l : a.nvlinks) {
      if (l.peerBusId == b.pciBusId) ++direct;
      if (!isGpu(l.peerBusId)) ++aSwitch;
    }
    if (direct > 0) return direct;
    const int bSwitch =
        static_cast<int>(std::count_if(b.nvlinks.begin(), b.nvlinks.end(),
                                       [&](const NvlinkPeer& l) { return !isGpu(l.peerBusId); }));
    return std::min(aSwitch, bSwitch);
  }

  static GpuLink linkOfLevel(int level) {
    if (level <= NVML_TOPOLOGY_SINGLE) return GpuLink{LinkKind::PIX, 0};
    if (level <= NVML_TOPOLOGY_MULTIPLE) return GpuLink{LinkKind::PXB, 0};
    if (level <= NVML_TOPOLOGY_HOSTBRIDGE) return GpuLink{LinkKind::PHB, 0};
    if (level <= NVML_TOPOLOGY_NODE) return GpuLink{LinkKind::NODE, 0};
    return GpuLink{LinkKind::SYS, 0};
  }

  const NvmlApi& api_;
  const NvmlProbeOptions& options_;
  std::vector<nvmlDevice_t> devices_;
  mutable bool lost_ = false;  // a call about the GPU being read answered GPU_IS_LOST
};

}  // namespace

bool nvmlLoadable(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return false;
  dlclose(handle);
  return true;
}

Expected<NodeInventory> probeNvml(const NvmlProbeOptions& options) {
  TESSERA_TRY(api, NvmlApi::open(options.library));
  return NvmlProber(*api, options).run();
}

}  // namespace tessera
