#include "inventory/sysfs_numa.h"

#include <filesystem>
#include <fstream>

#include "core/strings.h"

namespace tessera {

namespace {

std::string firstLine(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return std::string(trim(line));
}

// The NUMA nodes sysfs lists (node0, node1, ...); -1 unless there is exactly one.
int onlyNumaNode(const std::filesystem::path& nodeDir) {
  std::error_code ec;
  int found = -1;
  int count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(nodeDir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("node")) continue;
    const auto id = parseInt(std::string_view(name).substr(4));
    if (!id) continue;
    found = *id;
    ++count;
  }
  return count == 1 ? found : -1;
}

}  // namespace

std::string sysfsPciName(const std::string& busId) {
  const auto colon = busId.find(':');
  if (colon == std::string::npos) return toLower(busId);
  std::string domain = toLower(busId.substr(0, colon));
  // NVML pads the domain to 8 digits, sysfs to 4.
  while (domain.size() > 4 && domain.front() == '0') domain.erase(0, 1);
  return domain + toLower(busId.substr(colon));
}

SysfsNuma readSysfsNuma(const std::string& sysfsRoot, const std::string& busId) {
  SysfsNuma numa;
  if (busId.empty()) return numa;
  const std::filesystem::path root(sysfsRoot);
  const auto device = root / "bus/pci/devices" / sysfsPciName(busId);
  std::error_code ec;
  if (!std::filesystem::is_directory(device, ec)) return numa;
  numa.cpuList = firstLine(device / "local_cpulist");
  if (!numa.cpuList.empty() && !parseCpuList(numa.cpuList)) numa.cpuList.clear();
  const auto node = parseInt(firstLine(device / "numa_node"));
  numa.node = node && *node >= 0 ? *node : onlyNumaNode(root / "devices/system/node");
  return numa;
}

}  // namespace tessera
