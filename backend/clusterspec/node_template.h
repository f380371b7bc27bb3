#pragma once
// Node templates: the hardware every node of one kind shares (GPUs, NUMA, PCIe, NICs, NVLink,
// link matrix), read from a cluster spec or built from `nvidia-smi topo -m` output.
#include <memory>
#include <string>

#include "core/expected.h"
#include "topology/cluster.h"
#include "topology/gpu_catalog.h"
#include "topology/nvsmi_topo.h"
#include "topology/yaml_reader.h"

namespace tessera {

// Reads one entry of `node_templates:`; `baseDir` resolves `topo_file:` paths.
Expected<std::shared_ptr<const NodeHardware>> readNodeTemplate(const YamlField& f,
                                                               const std::string& name,
                                                               const GpuCatalog& catalog,
                                                               const std::string& baseDir);

// Hardware of a node described by `nvidia-smi topo -m`: NUMA zones from the affinity columns,
// PCIe switches from PIX/PXB groups of GPUs and NICs, NVLink from the NV# cells.
Expected<std::shared_ptr<NodeHardware>> hardwareFromTopo(const TopoMatrix& topo,
                                                         std::shared_ptr<const GpuModel> model,
                                                         const std::string& name);

// Fills `hw.links` from its NVLink mode, PCIe switches and NUMA zones (when no topo is given):
// NV# inside an NVSwitch board or bridge group, else PIX on a shared PCIe switch, NODE within a
// NUMA zone, SYS across zones.
void deriveLinkMatrix(NodeHardware& hw);
// Fills `hw.nicLinks` the same way for GPU-NIC paths: PIX behind a shared PCIe switch, NODE
// within the NIC's NUMA zone, SYS otherwise.
void deriveNicLinks(NodeHardware& hw);

// A `node_templates:` entry (YAML) for `tessera cluster import-topo`.
std::string nodeTemplateYaml(const NodeHardware& hw, const std::string& topoText);

}  // namespace tessera
