#pragma once
// Who can say which nodes reported their inventory: tesserad's Backend and the gRPC client
// (ListNodeInventory). Apart from ClusterSession so that adding it rebuilt no more than its
// users: the console and `tessera top` ask a session for it with dynamic_cast, and a session
// without it (none today) simply shows no admission list.
#include <vector>

#include "service/node_report.h"
#include "service/session.h"

namespace tessera {

class NodeInventorySource {
 public:
  virtual ~NodeInventorySource() = default;
  // Every node that reported its inventory since tesserad started: nodes waiting for an
  // operator's admission, the warnings of each node's last report, GPUs held out.
  virtual void nodeInventory(Reply<std::vector<NodeInventoryView>> reply) = 0;
};

}  // namespace tessera
