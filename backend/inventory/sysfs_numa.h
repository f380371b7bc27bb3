#pragma once
// A GPU's NUMA node and local CPUs from sysfs (/sys/bus/pci/devices/<bus id>/), which is where
// nvidia-smi topo -m gets them too.
#include <string>

namespace tessera {

struct SysfsNuma {
  int node = -1;        // -1 = unknown
  std::string cpuList;  // "0-55,112-167"; "" = unknown
};

// `busId` as NVML writes it ("00000000:00:06.0"). A VM reports numa_node -1; on a machine with a
// single NUMA node that node is the answer (as topo -m prints it), otherwise it stays unknown.
SysfsNuma readSysfsNuma(const std::string& sysfsRoot, const std::string& busId);

// "00000000:0A:00.0" -> "0000:0a:00.0", the name of the device's sysfs directory.
std::string sysfsPciName(const std::string& busId);

}  // namespace tessera
