#include "inventory/node_probe.h"

#include <unistd.h>

#include <algorithm>
#include <array>

#include "inventory/nvsmi_probe.h"

namespace tessera {

namespace {

Expected<NodeInventory> probeSmi(const NodeProbeOptions& options) {
  return probeNvidiaSmi(options.recordedDir.empty() ? liveNvidiaSmi(options.nvidiaSmi)
                                                    : recordedNvidiaSmi(options.recordedDir));
}

Expected<NodeInventory> probeSelected(const NodeProbeOptions& options) {
  if (options.source == ProbeSource::Nvml) return probeNvml(options.nvml);
  if (options.source == ProbeSource::NvidiaSmi || !options.recordedDir.empty())
    return probeSmi(options);
  if (nvmlLoadable(options.nvml.library)) return probeNvml(options.nvml);
  auto node = probeSmi(options);
  if (!node)
    return Error{"NVML not found (" + options.nvml.library + " does not load) and nvidia-smi " +
                     "failed: " + node.error().str(),
                 {}};
  node->notes.push_back("NVML not found (" + options.nvml.library +
                        " does not load); read nvidia-smi instead");
  return node;
}

}  // namespace

std::string probeHostName() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "localhost";
  return name.data();
}

Expected<NodeInventory> probeNode(const NodeProbeOptions& options) {
  TESSERA_TRY(node, probeSelected(options));
  node.hostname = probeHostName();
  // A recorded node's CPUs and memory are not this machine's: unknown then.
  if (options.recordedDir.empty()) {
    node.cpus = static_cast<int>(std::max(0L, sysconf(_SC_NPROCESSORS_ONLN)));
    node.memoryMiB =
        std::max(0L, sysconf(_SC_PHYS_PAGES)) * std::max(0L, sysconf(_SC_PAGE_SIZE)) / (1 << 20);
  }
  return node;
}

}  // namespace tessera
