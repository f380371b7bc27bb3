#pragma once
// Our own declarations of the NVML calls the inventory probe uses, so that Tessera builds without
// nvml.h (Debian ships it only in non-free, and the CUDA toolkit on our machines has none) and
// loads libnvidia-ml.so.1 at run time. Layouts follow nvml.h (NVML_API_VERSION 13); see the shared
// reference "Real GPU inventory" table C3. The test suite builds a fake libnvidia-ml.so.1 from this
// same header, so the probe and the fake cannot disagree on a signature.
#include <cstddef>

extern "C" {

using nvmlReturn_t = int;
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_UNINITIALIZED = 1;
inline constexpr nvmlReturn_t NVML_ERROR_INVALID_ARGUMENT = 2;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_NO_PERMISSION = 4;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_FOUND = 6;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_DRIVER_NOT_LOADED = 9;
inline constexpr nvmlReturn_t NVML_ERROR_TIMEOUT = 10;  // nvmlEventSetWait: no event in time
inline constexpr nvmlReturn_t NVML_ERROR_LIBRARY_NOT_FOUND = 12;
inline constexpr nvmlReturn_t NVML_ERROR_FUNCTION_NOT_FOUND = 13;
inline constexpr nvmlReturn_t NVML_ERROR_GPU_IS_LOST = 15;
inline constexpr nvmlReturn_t NVML_ERROR_UNKNOWN = 999;

struct nvmlDevice_st;
struct nvmlGpuInstance_st;
struct nvmlComputeInstance_st;
using nvmlDevice_t = nvmlDevice_st*;
using nvmlGpuInstance_t = nvmlGpuInstance_st*;
using nvmlComputeInstance_t = nvmlComputeInstance_st*;

inline constexpr unsigned NVML_DEVICE_NAME_BUFFER_SIZE = 96;
inline constexpr unsigned NVML_DEVICE_UUID_BUFFER_SIZE = 96;
inline constexpr unsigned NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE = 80;
inline constexpr unsigned NVML_NVLINK_MAX_LINKS = 18;

struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned domain;
  unsigned bus;
  unsigned device;
  unsigned pciDeviceId;  // device id in the high 16 bits, vendor id (0x10DE) in the low ones
  unsigned pciSubSystemId;
  char busId[32];  // "00000000:00:06.0"
};

struct nvmlMemory_t {
  unsigned long long total, free, used;
};

struct nvmlUtilization_t {
  unsigned gpu, memory;  // percent of the last sample period
};

inline constexpr int NVML_TEMPERATURE_GPU = 0;

// The v1 layout, the one nvmlDeviceGetGpuInstanceProfileInfo (no version field) takes.
struct nvmlGpuInstanceProfileInfo_t {
  unsigned id, isP2pSupported, sliceCount, instanceCount, multiprocessorCount, copyEngineCount,
      decoderCount, encoderCount, jpegCount, ofaCount;
  unsigned long long memorySizeMB;  // MiB, despite the name
};

struct nvmlGpuInstancePlacement_t {
  unsigned start, size;  // in memory slices
};

struct nvmlGpuInstanceInfo_t {
  nvmlDevice_t device;
  unsigned id, profileId;
  nvmlGpuInstancePlacement_t placement;
};

struct nvmlComputeInstanceProfileInfo_t {
  unsigned id, sliceCount, instanceCount, multiprocessorCount, sharedCopyEngineCount,
      sharedDecoderCount, sharedEncoderCount, sharedJpegCount, sharedOfaCount;
};

struct nvmlComputeInstancePlacement_t {
  unsigned start, size;  // in compute slices of the GPU instance
};

struct nvmlComputeInstanceInfo_t {
  nvmlDevice_t device;
  nvmlGpuInstance_t gpuInstance;
  unsigned id, profileId;
  nvmlComputeInstancePlacement_t placement;
};

// nvmlGpuTopologyLevel_t: the closest common ancestor of two GPUs on the PCIe tree.
inline constexpr int NVML_TOPOLOGY_INTERNAL = 0;
inline constexpr int NVML_TOPOLOGY_SINGLE = 10;      // PIX
inline constexpr int NVML_TOPOLOGY_MULTIPLE = 20;    // PXB
inline constexpr int NVML_TOPOLOGY_HOSTBRIDGE = 30;  // PHB
inline constexpr int NVML_TOPOLOGY_NODE = 40;        // NODE
inline constexpr int NVML_TOPOLOGY_SYSTEM = 50;      // SYS
inline constexpr int NVML_FEATURE_ENABLED = 1;
// Events (nvml.h, "Event Types" and nvmlEventData_t; checked against the NVML API reference):
// bits for nvmlDeviceRegisterEvents, and what nvmlEventSetWait_v2 delivers.
struct nvmlEventSet_st;
using nvmlEventSet_t = nvmlEventSet_st*;
inline constexpr unsigned long long nvmlEventTypeDoubleBitEccError = 0x2;
inline constexpr unsigned long long nvmlEventTypeXidCriticalError = 0x8;
struct nvmlEventData_t {
  nvmlDevice_t device;
  unsigned long long eventType;
  unsigned long long eventData;  // the Xid, for nvmlEventTypeXidCriticalError
  unsigned gpuInstanceId, computeInstanceId;
};
// nvmlMemoryErrorType_t and nvmlEccCounterType_t for nvmlDeviceGetTotalEccErrors.
inline constexpr int NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1;  // double-bit
inline constexpr int NVML_VOLATILE_ECC = 0;                   // since the driver loaded
inline constexpr unsigned NVML_COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED = 0;

// Every call the probe makes; X(name, parameter list). The probe resolves each with dlsym.
#define TESSERA_NVML_CALLS(X)                                                                      \
  X(nvmlInit_v2, (void))                                                                           \
  X(nvmlShutdown, (void))                                                                          \
  X(nvmlSystemGetDriverVersion, (char* version, unsigned length))                                  \
  X(nvmlDeviceGetCount_v2, (unsigned* count))                                                      \
  X(nvmlDeviceGetHandleByIndex_v2, (unsigned index, nvmlDevice_t* device))                         \
  X(nvmlDeviceGetName, (nvmlDevice_t device, char* name, unsigned length))                         \
  X(nvmlDeviceGetUUID, (nvmlDevice_t device, char* uuid, unsigned length))                         \
  X(nvmlDeviceGetPciInfo_v3, (nvmlDevice_t device, nvmlPciInfo_t * pci))                           \
  X(nvmlDeviceGetMemoryInfo, (nvmlDevice_t device, nvmlMemory_t * memory))                         \
  X(nvmlDeviceGetMigMode, (nvmlDevice_t device, unsigned* current, unsigned* pending))             \
  X(nvmlDeviceGetMaxMigDeviceCount, (nvmlDevice_t device, unsigned* count))                        \
  X(nvmlDeviceGetGpuInstanceProfileInfo,                                                           \
    (nvmlDevice_t device, unsigned profile, nvmlGpuInstanceProfileInfo_t* info))                   \
  X(nvmlDeviceGetGpuInstancePossiblePlacements_v2,                                                 \
    (nvmlDevice_t device, unsigned profileId, nvmlGpuInstancePlacement_t* placements,              \
     unsigned* count))                                                                             \
  X(nvmlDeviceGetGpuInstances,                                                                     \
    (nvmlDevice_t device, unsigned profileId, nvmlGpuInstance_t* instances, unsigned* count))      \
  X(nvmlGpuInstanceGetInfo, (nvmlGpuInstance_t instance, nvmlGpuInstanceInfo_t * info))            \
  X(nvmlGpuInstanceGetComputeInstanceProfileInfo,                                                  \
    (nvmlGpuInstance_t instance, unsigned profile, unsigned engineProfile,                         \
     nvmlComputeInstanceProfileInfo_t* info))                                                      \
  X(nvmlGpuInstanceGetComputeInstances, (nvmlGpuInstance_t instance, unsigned profileId,           \
                                         nvmlComputeInstance_t* instances, unsigned* count))       \
  X(nvmlComputeInstanceGetInfo,                                                                    \
    (nvmlComputeInstance_t instance, nvmlComputeInstanceInfo_t * info))                            \
  X(nvmlDeviceGetMigDeviceHandleByIndex,                                                           \
    (nvmlDevice_t device, unsigned index, nvmlDevice_t* migDevice))                                \
  X(nvmlDeviceGetGpuInstanceId, (nvmlDevice_t device, unsigned* id))                               \
  X(nvmlDeviceGetComputeInstanceId, (nvmlDevice_t device, unsigned* id))                           \
  X(nvmlDeviceGetTopologyCommonAncestor, (nvmlDevice_t a, nvmlDevice_t b, int* level))             \
  X(nvmlDeviceGetNvLinkState, (nvmlDevice_t device, unsigned link, int* active))                   \
  X(nvmlDeviceGetNvLinkRemotePciInfo_v2, (nvmlDevice_t device, unsigned link, nvmlPciInfo_t* pci)) \
  X(nvmlDeviceGetUtilizationRates, (nvmlDevice_t device, nvmlUtilization_t * utilization))         \
  X(nvmlDeviceGetTemperature, (nvmlDevice_t device, int sensor, unsigned* celsius))                \
  X(nvmlDeviceGetPowerUsage, (nvmlDevice_t device, unsigned* milliwatts))                         \
  X(nvmlDeviceGetTotalEccErrors,                                                                   \
    (nvmlDevice_t device, int errorType, int counterType, unsigned long long* count))              \
  X(nvmlEventSetCreate, (nvmlEventSet_t * set))                                                    \
  X(nvmlDeviceRegisterEvents, (nvmlDevice_t device, unsigned long long types, nvmlEventSet_t set)) \
  X(nvmlEventSetWait_v2, (nvmlEventSet_t set, nvmlEventData_t * data, unsigned timeoutMs))        \
  X(nvmlEventSetFree, (nvmlEventSet_t set))

#define TESSERA_NVML_DECLARE(name, params) nvmlReturn_t name params;
TESSERA_NVML_CALLS(TESSERA_NVML_DECLARE)
#undef TESSERA_NVML_DECLARE

const char* nvmlErrorString(nvmlReturn_t result);

}  // extern "C"
