#pragma once
// One entry point for `tessera node probe` (and later the node agent): NVML when it loads, else
// nvidia-smi, live or from a directory of saved outputs.
#include <string>

#include "core/expected.h"
#include "inventory/node_inventory.h"
#include "inventory/nvml_probe.h"

namespace tessera {

enum class ProbeSource { Auto, Nvml, NvidiaSmi };

struct NodeProbeOptions {
  ProbeSource source = ProbeSource::Auto;
  NvmlProbeOptions nvml;
  std::string nvidiaSmi = "nvidia-smi";  // the tool to run
  std::string recordedDir;               // read saved nvidia-smi outputs instead of running it
};

Expected<NodeInventory> probeNode(const NodeProbeOptions& options);

// This machine's host name (gethostname), the default node name in what the probe prints.
std::string probeHostName();

}  // namespace tessera
