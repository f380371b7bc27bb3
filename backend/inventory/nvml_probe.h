#pragma once
// The inventory from NVML, loaded at run time: no build dependency on the driver, and a plain
// "NVML not found" on machines without one (then the probe falls back to nvidia-smi).
#include <string>

#include "core/expected.h"
#include "inventory/node_inventory.h"

namespace tessera {

struct NvmlProbeOptions {
  std::string library = "libnvidia-ml.so.1";  // a dlopen name or path
  // Where sysfs is mounted: NVML has no NUMA call in our set, so the GPU's numa_node and
  // local_cpulist come from /sys/bus/pci/devices/<bus id>/. Tests point it at a fixture tree.
  std::string sysfsRoot = "/sys";
};

// True when the library can be loaded at all; false means "no NVML here": use nvidia-smi.
bool nvmlLoadable(const std::string& library);

// Everything NVML says about the node's GPUs. Errors name the call, the GPU and NVML's text.
Expected<NodeInventory> probeNvml(const NvmlProbeOptions& options);

}  // namespace tessera
