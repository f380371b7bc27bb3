#pragma once
// What `tessera node probe` prints: the node's cluster-spec entry (YAML, docs/cluster-spec.md; the
// text also loads on its own as a one-node spec) or the whole inventory as JSON.
#include <string>

#include "core/expected.h"
#include "inventory/catalog_check.h"
#include "inventory/node_inventory.h"

namespace tessera {

struct SpecNames {
  std::string node;   // the node's name in the spec (default: the host name)
  std::string templ;  // its node template (default: "<node>-hw")
  std::string leaf = "leaf-probe";
};

// Needs every GPU matched to a catalog model (check.allKnown()) and one model per node.
Expected<std::string> inventorySpecYaml(const NodeInventory& node, const CatalogCheck& check,
                                        const SpecNames& names);
std::string inventoryJson(const NodeInventory& node, const CatalogCheck& check);

// `nvidia-smi topo -m` text for the inventory's link matrix, NUMA and CPU affinity; empty when
// the matrix is unknown.
std::string topoText(const NodeInventory& node);

// The GPU's MIG layout in the layout syntax (docs/mig-layout-syntax.md), "-" for MIG mode with no
// instances; an error when an instance's profile is not in the model's table.
Expected<std::string> migLayoutText(const GpuInventory& gpu, const GpuModel& model);

}  // namespace tessera
