#pragma once
// What `tessera agent` reports of its node (ReportInventory): the probe's inventory with each
// GPU's catalog model and MIG layout as the agent's catalog names them, and the catalog check's
// warnings. tesserad judges the values; the agent only translates.
#include <string>

#include "inventory/catalog_check.h"
#include "inventory/node_inventory.h"
#include "tessera.pb.h"

namespace tessera::cli {

// The node's names in the cluster model (agent --node, --leaf, --pool).
struct AgentPlace {
  std::string node;
  std::string leaf;
  std::string pool;
};

v1::ReportInventoryRequest inventoryRequest(const NodeInventory& node, const CatalogCheck& check,
                                            const AgentPlace& place);

}  // namespace tessera::cli
