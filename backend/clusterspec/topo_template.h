#pragma once
// Node hardware derived from `nvidia-smi topo -m` output, and the template text that
// `tessera cluster import-topo` prints for it.
#include <memory>
#include <string>

#include "core/expected.h"
#include "topology/cluster.h"
#include "topology/nvsmi_topo.h"

namespace tessera {

// Hardware of a node described by `nvidia-smi topo -m`: NUMA zones from the affinity columns,
// PCIe switches from PIX/PXB groups of GPUs and NICs, NVLink from the NV# cells.
Expected<std::shared_ptr<NodeHardware>> hardwareFromTopo(const TopoMatrix& topo,
                                                         std::shared_ptr<const GpuModel> model,
                                                         const std::string& name);

// A `node_templates:` entry (YAML) for `tessera cluster import-topo`.
std::string nodeTemplateYaml(const NodeHardware& hw, const std::string& topoText);

}  // namespace tessera
