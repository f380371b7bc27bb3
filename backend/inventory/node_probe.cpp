#include "inventory/node_probe.h"

#include <unistd.h>

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
  return node;
}

}  // namespace tessera
