#pragma once
// Node templates: the hardware every node of one kind shares (GPUs, NUMA, PCIe, NICs, NVLink,
// link matrix), read from a cluster spec or built from `nvidia-smi topo -m` output.
#include <memory>
#include <string>

#include "clusterspec/topo_template.h"
#include "core/expected.h"
#include "topology/cluster.h"
#include "topology/gpu_catalog.h"
#include "topology/yaml_reader.h"

namespace tessera {

// Reads one entry of `node_templates:`; `baseDir` resolves `topo_file:` paths.
Expected<std::shared_ptr<const NodeHardware>> readNodeTemplate(const YamlField& f,
                                                               const std::string& name,
                                                               const GpuCatalog& catalog,
                                                               const std::string& baseDir);

// Fills `hw.links` from its NVLink mode, PCIe switches and NUMA zones (when no topo is given):
// NV# inside an NVSwitch board or bridge group, else PIX on a shared PCIe switch, NODE within a
// NUMA zone, SYS across zones.
void deriveLinkMatrix(NodeHardware& hw);
// Fills `hw.nicLinks` the same way for GPU-NIC paths: PIX behind a shared PCIe switch, NODE
// within the NIC's NUMA zone, SYS otherwise.
void deriveNicLinks(NodeHardware& hw);

}  // namespace tessera
