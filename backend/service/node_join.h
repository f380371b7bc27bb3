#pragma once
// A node that reported its inventory joining the cluster model (its admission): the node's
// template is made from the report (GPU model and count, host CPUs and memory, the `topo -m`
// matrix with NUMA zones, NVLink and PCIe), with its MIG layouts, driver, leaf and pool. The
// grown model is written as spec text and loaded back, so what the database stores reloads the
// same after a restart, and the GPUs already in the model keep their ids (the node comes last).
#include <memory>

#include "core/expected.h"
#include "service/node_report.h"
#include "topology/cluster.h"
#include "topology/gpu_catalog.h"

namespace tessera {

// The model with the reported node added. Refused (naming the report's field) when the node
// reports no GPU, GPUs of two models, indexes that are not 0..N-1, a faulted GPU, a leaf name
// that is a spine, or values the spec reader refuses.
Expected<std::shared_ptr<const Cluster>> clusterWithNode(const Cluster& cluster,
                                                         const InventoryReport& report,
                                                         const GpuCatalog& catalog);

// The leaf a node joins under when its agent names none: a leaf of its own, since where it sits
// in the fabric is unknown.
std::string ownLeafName(const std::string& node);

}  // namespace tessera
