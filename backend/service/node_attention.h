#pragma once
// Which reporting nodes an operator should look at (the console's and `tessera top`'s node
// admission lists), in one order for both: nodes awaiting admission first, then admitted ones
// still to join, then nodes of the cluster model whose last report has warnings (catalog
// mismatches, a model or MIG mode the cluster model disagrees with); by name within each. A node
// of the model with nothing to say is left out.
#include <vector>

#include "service/node_report.h"

namespace tessera {

std::vector<NodeInventoryView> nodesForOperator(std::vector<NodeInventoryView> nodes);

}  // namespace tessera
