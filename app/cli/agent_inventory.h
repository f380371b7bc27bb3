#pragma once
// What `tessera agent` reports of its node (ReportInventory): the probe's inventory with each
// GPU's catalog model and MIG layout as the agent's catalog names them, and the catalog check's
// warnings. tesserad judges the values; the agent only translates.
#include <string>

#include "inventory/catalog_check.h"
#include "inventory/node_inventory.h"
#include "tessera.pb.h"

namespace tessera::cli {

v1::ReportInventoryRequest inventoryRequest(const NodeInventory& node, const CatalogCheck& check,
                                            const std::string& nodeName);

}  // namespace tessera::cli
