#pragma once
// The probed GPUs against the GPU catalog: which model each GPU is (PCI device id and product
// name), and where the catalog's MIG table disagrees with what the driver reports. Differences are
// warnings: the driver is the truth for this node, the catalog for planning elsewhere.
#include <memory>
#include <string>
#include <vector>

#include "inventory/node_inventory.h"
#include "topology/gpu_catalog.h"

namespace tessera {

struct CatalogCheck {
  // Per GPU (same index as NodeInventory::gpus); null for a model the catalog does not know.
  std::vector<std::shared_ptr<const GpuModel>> models;
  std::vector<std::string> warnings;  // each said once, even when every GPU repeats it
  std::vector<std::string> unknown;   // one message per GPU model the catalog lacks

  [[nodiscard]] bool allKnown() const { return unknown.empty(); }
};

CatalogCheck checkAgainstCatalog(const NodeInventory& node, const GpuCatalog& catalog);

// A catalog entry (YAML, the format of docs/gpu-catalog.md, indented as a `models:` item) built
// from what the driver reported for `gpu`, for a model the catalog lacks.
std::string catalogStanza(const GpuInventory& gpu);

}  // namespace tessera
