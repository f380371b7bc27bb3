#pragma once
// Schema migration 6 (database.cpp): GPU holds the node inventory put before holds had an
// `inventory` owner. A tesserad from before that stored them as `gpu-fault` holds, the owner
// telemetry's Xid holds have, so after an upgrade telemetry without an Xid would lift them and a
// report showing the GPU healthy again would not (it lifts only the inventory's own hold). The
// migration gives them their owner back; their GPU, reason, state and time stay as stored.
#include "core/expected.h"

namespace tessera {

class Database;

// Inside the migration's transaction. A database without the inventory's held GPUs (no
// `extra.inventory.held`, or an empty one: simulated-live, or nothing held) is left as it is.
Status migrateInventoryHolds(Database& db);

}  // namespace tessera
