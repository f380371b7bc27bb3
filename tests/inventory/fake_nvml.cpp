// A fake libnvidia-ml.so.1 for the inventory tests, built from the probe's own declarations
// (backend/inventory/nvml_abi.h). nvmlInit_v2 reads the fixture files named in TESSERA_FAKE_NVML
// (':'-separated). Their format is the recorded probe output (tests/data/real-gpu/*/nvml-probe.txt)
// plus lines for what that recording could not show:
//   gpu G pci BUS-ID DEVICE-ID          gi G id I profile P placement S:N
//   ci G gi I id C profile P placement S:N
//   migdev G index K uuid U gi I ci C   nvlink G link L peer BUS-ID
//   topo G H level N                    error FUNCTION CODE   (that call answers CODE)
//   gpu G util PERCENT | temp CELSIUS | power_mw MILLIWATTS | mem_used_mib MIB
//   lost G                              (GPU G has fallen off the bus: GPU_IS_LOST)
//   gpu G ecc_dbe COUNT                 (volatile uncorrected ECC errors)
//   event G xid XID | event G dbe       (an event nvmlEventSetWait_v2 delivers, once per set)
// "profile" lines belong to the GPU of the last "gpu" line. Profile indexes a file does not list
// answer INVALID_ARGUMENT, as past the last index of a real driver.
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "inventory/nvml_abi.h"

namespace {

struct FakeProfile {
  nvmlReturn_t status = NVML_SUCCESS;
  nvmlGpuInstanceProfileInfo_t info{};
  std::vector<nvmlGpuInstancePlacement_t> placements;
};

struct FakeCi {
  unsigned id = 0, profileId = 0, start = 0, size = 0;
};

struct FakeGi {
  unsigned id = 0, profileId = 0, start = 0, size = 0;
  std::deque<FakeCi> cis;
};

struct FakeMigDevice {
  unsigned index = 0, gi = 0, ci = 0;
  std::string uuid;
};

struct FakeGpu {
  std::string name, uuid, busId = "00000000:00:00.0";
  unsigned deviceId = 0;
  unsigned long long memMiB = 0, memUsedMiB = 0;
  unsigned util = 0, temp = 0, powerMw = 0;
  unsigned migCurrent = 0, migPending = 0, maxMig = 0;
  nvmlReturn_t migStatus = NVML_SUCCESS;
  std::map<unsigned, FakeProfile> profiles;  // by profile index
  std::deque<FakeGi> gis;
  std::deque<FakeMigDevice> migs;
  std::map<unsigned, std::string> nvlinks;  // link -> peer bus id
  std::map<unsigned, int> topo;             // other GPU -> common ancestor level
  bool lost = false;                        // fallen off the bus: its calls answer GPU_IS_LOST
  unsigned long long eccDbe = 0;
};

// One "event" line; `line` tells it apart from the others (a rewritten fixture keeps the events
// already delivered delivered).
struct FakeEvent {
  unsigned gpu = 0;
  unsigned long long type = 0, data = 0;
  std::string line;
};

// What an nvmlDevice_t points at: a GPU, or one of its MIG devices.
struct DeviceHandle {
  FakeGpu* gpu = nullptr;
  FakeMigDevice* mig = nullptr;
};

struct FakeNode {
  nvmlReturn_t init = NVML_SUCCESS;
  std::string driver;
  unsigned count = 0;
  std::deque<FakeGpu> gpus;
  std::deque<DeviceHandle> handles;
  std::map<std::string, nvmlReturn_t> errors;
  std::vector<FakeEvent> events;
};

// An event set lives across fixture reloads (an agent keeps its set while other NVML sessions
// of the process init and shut down): what it registered is kept by GPU index.
struct FakeEventSet {
  std::map<unsigned, unsigned long long> types;  // GPU index -> registered event types
  std::map<std::string, int> delivered;          // event line -> times delivered
};

FakeNode& node() {
  static FakeNode n;
  return n;
}

FakeGpu& gpuAt(unsigned i) {
  while (node().gpus.size() <= i) node().gpus.emplace_back();
  return node().gpus[i];
}

std::string rest(std::istringstream& in) {
  std::string r;
  std::getline(in, r);
  const auto first = r.find_first_not_of(' ');
  return first == std::string::npos ? "" : r.substr(first);
}

std::pair<unsigned, unsigned> startSize(const std::string& s) {
  const auto colon = s.find(':');
  return {static_cast<unsigned>(std::stoul(s.substr(0, colon))),
          static_cast<unsigned>(std::stoul(s.substr(colon + 1)))};
}

void readGpuLine(std::istringstream& in, unsigned g) {
  FakeGpu& gpu = gpuAt(g);
  std::string key;
  in >> key;
  if (key == "name") gpu.name = rest(in);
  if (key == "uuid") in >> gpu.uuid;
  if (key == "mem_total_mib") in >> gpu.memMiB;
  if (key == "max_mig_devices") in >> gpu.maxMig;
  if (key == "mem_used_mib") in >> gpu.memUsedMiB;
  if (key == "util") in >> gpu.util;
  if (key == "temp") in >> gpu.temp;
  if (key == "power_mw") in >> gpu.powerMw;
  if (key == "ecc_dbe") in >> gpu.eccDbe;
  if (key == "pci") in >> gpu.busId >> std::hex >> gpu.deviceId >> std::dec;
  if (key == "mig_mode") {
    std::string pendingWord;
    in >> gpu.migCurrent >> pendingWord >> gpu.migPending;
    if (rest(in).find("Not Supported") != std::string::npos)
      gpu.migStatus = NVML_ERROR_NOT_SUPPORTED;
  }
}

// "profile 0 id 19 slices 1 instances 7 sms 16 ce 1 dec 1 enc 0 jpeg 1 ofa 0 mem_mb 9984
// placements 0:1 1:1" or "profile 5: Not Supported".
void readProfileLine(const std::string& line, unsigned g) {
  std::istringstream in(line);
  std::string word, index;
  in >> word >> index;
  FakeProfile p;
  if (index.back() == ':') {
    p.status = NVML_ERROR_NOT_SUPPORTED;
    gpuAt(g).profiles[static_cast<unsigned>(std::stoul(index))] = p;
    return;
  }
  auto& i = p.info;
  std::string key;
  while (in >> key) {
    if (key == "placements") {
      std::string pl;
      while (in >> pl) {
        const auto [start, size] = startSize(pl);
        p.placements.push_back({start, size});
      }
      break;
    }
    unsigned long long v = 0;
    in >> v;
    const auto u = static_cast<unsigned>(v);
    if (key == "id") i.id = u;
    if (key == "slices") i.sliceCount = u;
    if (key == "instances") i.instanceCount = u;
    if (key == "sms") i.multiprocessorCount = u;
    if (key == "ce") i.copyEngineCount = u;
    if (key == "dec") i.decoderCount = u;
    if (key == "enc") i.encoderCount = u;
    if (key == "jpeg") i.jpegCount = u;
    if (key == "ofa") i.ofaCount = u;
    if (key == "mem_mb") i.memorySizeMB = v;
  }
  gpuAt(g).profiles[static_cast<unsigned>(std::stoul(index))] = p;
}

void readInstanceLine(const std::string& kind, std::istringstream& in) {
  unsigned g = 0;
  std::string w, placement;
  if (kind == "gi") {
    FakeGi gi;
    in >> g >> w >> gi.id >> w >> gi.profileId >> w >> placement;
    std::tie(gi.start, gi.size) = startSize(placement);
    gpuAt(g).gis.push_back(gi);
    return;
  }
  unsigned giId = 0;
  FakeCi ci;
  in >> g >> w >> giId >> w >> ci.id >> w >> ci.profileId >> w >> placement;
  std::tie(ci.start, ci.size) = startSize(placement);
  for (auto& gi : gpuAt(g).gis)
    if (gi.id == giId) gi.cis.push_back(ci);
}

void readLine(const std::string& line, unsigned& current) {
  std::istringstream in(line);
  std::string kind;
  in >> kind;
  unsigned g = 0;
  std::string w;
  if (kind == "init") in >> node().init;
  if (kind == "driver") in >> node().driver;
  if (kind == "count") in >> node().count;
  if (kind == "gpu") {
    in >> current;
    readGpuLine(in, current);
  }
  if (kind == "profile") readProfileLine(line, current);
  if (kind == "gi" || kind == "ci") readInstanceLine(kind, in);
  if (kind == "migdev") {
    FakeMigDevice m;
    in >> g >> w >> m.index >> w >> m.uuid >> w >> m.gi >> w >> m.ci;
    gpuAt(g).migs.push_back(m);
  }
  if (kind == "nvlink") {
    unsigned link = 0;
    std::string peer;
    in >> g >> w >> link >> w >> peer;
    gpuAt(g).nvlinks[link] = peer;
  }
  if (kind == "topo") {
    unsigned other = 0;
    int level = 0;
    in >> g >> other >> w >> level;
    gpuAt(g).topo[other] = level;
  }
  if (kind == "event") {
    FakeEvent e{0, 0, 0, line};
    std::string type;
    in >> e.gpu >> type;
    if (type == "xid") in >> e.data;
    e.type = type == "xid" ? nvmlEventTypeXidCriticalError : nvmlEventTypeDoubleBitEccError;
    node().events.push_back(e);
  }
  if (kind == "lost") {
    in >> g;
    gpuAt(g).lost = true;
  }
  if (kind == "error") {
    std::string function;
    nvmlReturn_t code = 0;
    in >> function >> code;
    node().errors[function] = code;
  }
}

bool loadFixtures() {
  node() = FakeNode{};
  const char* list = std::getenv("TESSERA_FAKE_NVML");
  if (!list || !*list) return false;
  std::stringstream files(list);
  std::string path;
  unsigned current = 0;
  while (std::getline(files, path, ':')) {
    std::ifstream in(path);
    if (!in) return false;
    std::string line;
    while (std::getline(in, line)) readLine(line, current);
  }
  for (auto& gpu : node().gpus) node().handles.push_back({&gpu, nullptr});
  return true;
}

nvmlReturn_t injected(const char* function) {
  const auto it = node().errors.find(function);
  return it == node().errors.end() ? NVML_SUCCESS : it->second;
}

#define FAKE_INJECTED_ERROR(name) \
  if (const nvmlReturn_t e = injected(#name); e != NVML_SUCCESS) return e

// A GPU fallen off the bus answers every call about it so.
#define FAKE_LOST_GPU(device) \
  if (handleOf(device)->gpu->lost) return NVML_ERROR_GPU_IS_LOST

DeviceHandle* handleOf(nvmlDevice_t d) {
  return reinterpret_cast<DeviceHandle*>(d);
}

nvmlReturn_t copyText(const std::string& s, char* out, unsigned length) {
  if (s.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  std::memcpy(out, s.c_str(), s.size() + 1);
  return NVML_SUCCESS;
}

FakeGi* giOf(nvmlGpuInstance_t g) {
  return reinterpret_cast<FakeGi*>(g);
}

// The compute-instance profile indexes NVML defines, by the compute slices they take.
constexpr unsigned kCiSlices[] = {1, 2, 3, 4, 7, 8, 6};

unsigned giComputeSlices(const FakeGi& gi) {
  for (const auto& gpu : node().gpus)
    for (const auto& [index, p] : gpu.profiles)
      if (p.status == NVML_SUCCESS && p.info.id == gi.profileId) return p.info.sliceCount;
  return 0;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) nvmlReturn_t nvmlInit_v2(void) {
  if (!loadFixtures()) return NVML_ERROR_DRIVER_NOT_LOADED;
  FAKE_INJECTED_ERROR(nvmlInit_v2);
  return node().init;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlShutdown(void) {
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) const char* nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
    case NVML_SUCCESS:
      return "Success";
    case NVML_ERROR_UNINITIALIZED:
      return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT:
      return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED:
      return "Not Supported";
    case NVML_ERROR_NO_PERMISSION:
      return "Insufficient Permissions";
    case NVML_ERROR_NOT_FOUND:
      return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE:
      return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED:
      return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST:
      return "GPU is lost";
    case NVML_ERROR_TIMEOUT:
      return "Timeout";
    default:
      return "Unknown Error";
  }
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlSystemGetDriverVersion(char* v,
                                                                               unsigned length) {
  FAKE_INJECTED_ERROR(nvmlSystemGetDriverVersion);
  return copyText(node().driver, v, length);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* count) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetCount_v2);
  *count = node().count;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(
    unsigned index, nvmlDevice_t* device) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetHandleByIndex_v2);
  if (index >= node().handles.size()) return NVML_ERROR_INVALID_ARGUMENT;
  *device = reinterpret_cast<nvmlDevice_t>(&node().handles[index]);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char* name,
                                                                      unsigned length) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetName);
  FAKE_LOST_GPU(d);
  return copyText(handleOf(d)->gpu->name, name, length);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char* uuid,
                                                                      unsigned length) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetUUID);
  FAKE_LOST_GPU(d);
  const DeviceHandle* h = handleOf(d);
  return copyText(h->mig ? h->mig->uuid : h->gpu->uuid, uuid, length);
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d,
                                                                            nvmlPciInfo_t* pci) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetPciInfo_v3);
  FAKE_LOST_GPU(d);
  const FakeGpu& gpu = *handleOf(d)->gpu;
  *pci = nvmlPciInfo_t{};
  std::strncpy(pci->busId, gpu.busId.c_str(), sizeof pci->busId - 1);
  pci->pciDeviceId = gpu.deviceId;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d,
                                                                            nvmlMemory_t* memory) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetMemoryInfo);
  FAKE_LOST_GPU(d);
  const FakeGpu& gpu = *handleOf(d)->gpu;
  memory->total = gpu.memMiB << 20;
  memory->used = gpu.memUsedMiB << 20;
  memory->free = memory->total - memory->used;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d,
                                                                         unsigned* current,
                                                                         unsigned* pending) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetMigMode);
  FAKE_LOST_GPU(d);
  const FakeGpu& gpu = *handleOf(d)->gpu;
  if (gpu.migStatus != NVML_SUCCESS) return gpu.migStatus;
  *current = gpu.migCurrent;
  *pending = gpu.migPending;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(
    nvmlDevice_t d, unsigned* count) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetMaxMigDeviceCount);
  *count = handleOf(d)->gpu->maxMig;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(
    nvmlDevice_t d, unsigned profile, nvmlGpuInstanceProfileInfo_t* info) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetGpuInstanceProfileInfo);
  const FakeGpu& gpu = *handleOf(d)->gpu;
  if (gpu.migStatus != NVML_SUCCESS) return gpu.migStatus;
  const auto it = gpu.profiles.find(profile);
  if (it == gpu.profiles.end()) return NVML_ERROR_INVALID_ARGUMENT;
  if (it->second.status != NVML_SUCCESS) return it->second.status;
  *info = it->second.info;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements_v2(
    nvmlDevice_t d, unsigned profileId, nvmlGpuInstancePlacement_t* placements, unsigned* count) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetGpuInstancePossiblePlacements_v2);
  for (const auto& [index, p] : handleOf(d)->gpu->profiles) {
    if (p.status != NVML_SUCCESS || p.info.id != profileId) continue;
    if (p.placements.size() > *count) return NVML_ERROR_INSUFFICIENT_SIZE;
    // Like the real library, a count larger than needed is left as passed.
    for (size_t i = 0; i < p.placements.size(); ++i) placements[i] = p.placements[i];
    return NVML_SUCCESS;
  }
  return NVML_ERROR_INVALID_ARGUMENT;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetGpuInstances(
    nvmlDevice_t d, unsigned profileId, nvmlGpuInstance_t* instances, unsigned* count) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetGpuInstances);
  unsigned n = 0;
  for (auto& gi : handleOf(d)->gpu->gis) {
    if (gi.profileId != profileId) continue;
    if (n >= *count) return NVML_ERROR_INSUFFICIENT_SIZE;
    instances[n++] = reinterpret_cast<nvmlGpuInstance_t>(&gi);
  }
  *count = n;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlGpuInstanceGetInfo(
    nvmlGpuInstance_t g, nvmlGpuInstanceInfo_t* info) {
  FAKE_INJECTED_ERROR(nvmlGpuInstanceGetInfo);
  const FakeGi& gi = *giOf(g);
  *info = nvmlGpuInstanceInfo_t{nullptr, gi.id, gi.profileId, {gi.start, gi.size}};
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(
    nvmlGpuInstance_t g, unsigned profile, unsigned, nvmlComputeInstanceProfileInfo_t* info) {
  FAKE_INJECTED_ERROR(nvmlGpuInstanceGetComputeInstanceProfileInfo);
  if (profile >= std::size(kCiSlices)) return NVML_ERROR_INVALID_ARGUMENT;
  if (kCiSlices[profile] > giComputeSlices(*giOf(g))) return NVML_ERROR_NOT_SUPPORTED;
  *info = nvmlComputeInstanceProfileInfo_t{};
  info->id = profile;
  info->sliceCount = kCiSlices[profile];
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlGpuInstanceGetComputeInstances(
    nvmlGpuInstance_t g, unsigned profileId, nvmlComputeInstance_t* instances, unsigned* count) {
  FAKE_INJECTED_ERROR(nvmlGpuInstanceGetComputeInstances);
  unsigned n = 0;
  for (auto& ci : giOf(g)->cis) {
    if (ci.profileId != profileId) continue;
    if (n >= *count) return NVML_ERROR_INSUFFICIENT_SIZE;
    instances[n++] = reinterpret_cast<nvmlComputeInstance_t>(&ci);
  }
  *count = n;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlComputeInstanceGetInfo(
    nvmlComputeInstance_t c, nvmlComputeInstanceInfo_t* info) {
  FAKE_INJECTED_ERROR(nvmlComputeInstanceGetInfo);
  const FakeCi& ci = *reinterpret_cast<FakeCi*>(c);
  *info = nvmlComputeInstanceInfo_t{nullptr, nullptr, ci.id, ci.profileId, {ci.start, ci.size}};
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(
    nvmlDevice_t d, unsigned index, nvmlDevice_t* mig) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetMigDeviceHandleByIndex);
  FakeGpu* gpu = handleOf(d)->gpu;
  for (auto& m : gpu->migs) {
    if (m.index != index) continue;
    node().handles.push_back({gpu, &m});
    *mig = reinterpret_cast<nvmlDevice_t>(&node().handles.back());
    return NVML_SUCCESS;
  }
  return NVML_ERROR_NOT_FOUND;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d,
                                                                               unsigned* id) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetGpuInstanceId);
  const DeviceHandle* h = handleOf(d);
  if (!h->mig) return NVML_ERROR_INVALID_ARGUMENT;
  *id = h->mig->gi;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d,
                                                                                   unsigned* id) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetComputeInstanceId);
  const DeviceHandle* h = handleOf(d);
  if (!h->mig) return NVML_ERROR_INVALID_ARGUMENT;
  *id = h->mig->ci;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(
    nvmlDevice_t a, nvmlDevice_t b, int* level) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetTopologyCommonAncestor);
  const FakeGpu* other = handleOf(b)->gpu;
  unsigned otherIndex = 0;
  while (&node().gpus[otherIndex] != other) ++otherIndex;
  const auto& topo = handleOf(a)->gpu->topo;
  const auto it = topo.find(otherIndex);
  *level = it == topo.end() ? NVML_TOPOLOGY_SYSTEM : it->second;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d,
                                                                             unsigned link,
                                                                             int* active) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetNvLinkState);
  const auto& links = handleOf(d)->gpu->nvlinks;
  // The recorded VM answered an error for every link; a GPU without listed links does the same.
  if (links.empty()) return NVML_ERROR_NOT_SUPPORTED;
  *active = links.count(link) ? NVML_FEATURE_ENABLED : 0;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(
    nvmlDevice_t d, unsigned link, nvmlPciInfo_t* pci) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetNvLinkRemotePciInfo_v2);
  const auto& links = handleOf(d)->gpu->nvlinks;
  const auto it = links.find(link);
  if (it == links.end()) return NVML_ERROR_INVALID_ARGUMENT;
  *pci = nvmlPciInfo_t{};
  std::strncpy(pci->busId, it->second.c_str(), sizeof pci->busId - 1);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetUtilizationRates(
    nvmlDevice_t d, nvmlUtilization_t* utilization) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetUtilizationRates);
  *utilization = nvmlUtilization_t{handleOf(d)->gpu->util, 0};
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int,
                                                                             unsigned* celsius) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetTemperature);
  *celsius = handleOf(d)->gpu->temp;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d,
                                                                            unsigned* milliwatts) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetPowerUsage);
  *milliwatts = handleOf(d)->gpu->powerMw;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceGetTotalEccErrors(
    nvmlDevice_t d, int errorType, int counterType, unsigned long long* count) {
  FAKE_INJECTED_ERROR(nvmlDeviceGetTotalEccErrors);
  FAKE_LOST_GPU(d);
  if (errorType != NVML_MEMORY_ERROR_TYPE_UNCORRECTED || counterType != NVML_VOLATILE_ECC)
    return NVML_ERROR_NOT_SUPPORTED;
  *count = handleOf(d)->gpu->eccDbe;
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t* set) {
  FAKE_INJECTED_ERROR(nvmlEventSetCreate);
  *set = reinterpret_cast<nvmlEventSet_t>(new FakeEventSet);
  return NVML_SUCCESS;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlDeviceRegisterEvents(
    nvmlDevice_t d, unsigned long long types, nvmlEventSet_t set) {
  FAKE_INJECTED_ERROR(nvmlDeviceRegisterEvents);
  FAKE_LOST_GPU(d);
  for (size_t i = 0; i < node().handles.size(); ++i)
    if (&node().handles[i] == handleOf(d))
      reinterpret_cast<FakeEventSet*>(set)->types[static_cast<unsigned>(i)] |= types;
  return NVML_SUCCESS;
}

// The first event of the fixture this set has not had yet, for a GPU and type it registered;
// never waits (the fixture cannot change during a call).
__attribute__((visibility("default"))) nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set,
                                                                        nvmlEventData_t* data,
                                                                        unsigned) {
  FAKE_INJECTED_ERROR(nvmlEventSetWait_v2);
  auto* s = reinterpret_cast<FakeEventSet*>(set);
  std::map<std::string, int> seen;
  for (const FakeEvent& e : node().events) {
    const int nth = seen[e.line]++;
    const auto registered = s->types.find(e.gpu);
    if (registered == s->types.end() || !(registered->second & e.type)) continue;
    if (nth < s->delivered[e.line] || e.gpu >= node().handles.size()) continue;
    ++s->delivered[e.line];
    *data = nvmlEventData_t{reinterpret_cast<nvmlDevice_t>(&node().handles[e.gpu]), e.type, e.data,
                            0xFFFFFFFFu, 0xFFFFFFFFu};
    return NVML_SUCCESS;
  }
  return NVML_ERROR_TIMEOUT;
}

__attribute__((visibility("default"))) nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
  delete reinterpret_cast<FakeEventSet*>(set);
  return NVML_SUCCESS;
}

}  // extern "C"
