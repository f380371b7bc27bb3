#pragma once
// Import of `nvidia-smi topo -m` text (formats: shared reference section 3.1) into a node's
// hardware description: link matrix, NUMA zones with CPU lists, PCIe switches, NICs, NVLink.
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "topology/links.h"

namespace tessera {

struct TopoMatrix {
  std::vector<std::string> gpus;  // "GPU0".. in column order
  std::vector<std::string> nics;  // device names: legend names ("mlx5_0") when a legend exists
  std::vector<std::vector<GpuLink>> gpuGpu;  // [gpu][gpu]
  std::vector<std::vector<GpuLink>> gpuNic;  // [gpu][nic]
  std::vector<std::vector<GpuLink>> nicNic;  // [nic][nic]
  std::vector<std::string> cpuAffinity;      // per GPU, cpulist text ("" when empty)
  std::vector<int> numaAffinity;             // per GPU, -1 when absent/"N/A"
};

// Parses the matrix. Tolerates ANSI underline codes, CRLF line ends, the older form without
// "GPU NUMA ID" and NIC legend, and trailing legend text. Errors name the line (1-based) and
// the cell, e.g. "line 3: GPU1 column GPU4: unknown link 'NVX'".
Expected<TopoMatrix> parseNvidiaSmiTopo(std::string_view text, const std::string& fileName = {});

}  // namespace tessera
