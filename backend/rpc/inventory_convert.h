#pragma once
// Node inventories between their messages (ReportInventory, ListNodeInventory) and the service's
// values (service/node_report.h). Reading a report checks its shape only (sizes, text); what the
// values mean for the cluster is the InventoryKeeper's to judge.
#include "core/expected.h"
#include "service/node_report.h"
#include "tessera.pb.h"

namespace tessera::rpc {

Expected<InventoryReport> inventoryReportFromProto(const v1::ReportInventoryRequest& m);
void inventoryReplyToProto(const InventoryReply& r, v1::ReportInventoryResponse& out);
void nodeInventoryToProto(const std::vector<NodeInventoryView>& nodes,
                          v1::ListNodeInventoryResponse& out);
// The client's reading of ListNodeInventory; an admission this client does not know (a newer
// server's) is an error naming it.
Expected<std::vector<NodeInventoryView>> nodeInventoryFromProto(
    const v1::ListNodeInventoryResponse& m);

}  // namespace tessera::rpc
