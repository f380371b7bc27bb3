#include "store/hold_owner_migration.h"

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "store/database.h"

namespace tessera {
namespace {

using json = nlohmann::json;

Expected<std::optional<std::string>> metaValue(Database& db, const std::string& key) {
  TESSERA_TRY(stmt, db.prepare("SELECT value FROM meta WHERE key = ?"));
  stmt.bind(1, key);
  TESSERA_TRY(row, stmt.step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(stmt.textAt(0));
}

// Which of the old `gpu-fault` holds were the inventory's: the inventory wrote its reason as a
// plain sentence that starts with the GPU ("GPU gpu-a/1: missing from the node's inventory",
// "GPU gpu-a/1: fallen off the bus (...)"), while telemetry's and the simulator's Xid holds
// carry the translatable "Xid %1 on GPU %2" (`reason_text`). The inventory's own list of held
// GPUs cannot tell by itself: it names GPUs by engine index, which only the cluster spec maps.
bool isInventoryHold(const json& hold) {
  if (!hold.is_object() || hold.value("owner", "") != "gpu-fault") return false;
  if (hold.contains("reason_text") || !hold.contains("gpu") || !hold["gpu"].is_string())
    return false;
  const std::string prefix = "GPU " + hold["gpu"].get<std::string>() + ": ";
  return hold.value("reason", "").rfind(prefix, 0) == 0;
}

}  // namespace

Status migrateInventoryHolds(Database& db) {
  TESSERA_TRY(held, metaValue(db, "extra.inventory.held"));
  if (!held || held->empty()) return okStatus();
  TESSERA_TRY(global, metaValue(db, "global"));
  if (!global) return okStatus();
  json state = json::parse(*global, nullptr, false);
  if (state.is_discarded() || !state.is_object() || !state.contains("nodes") ||
      !state["nodes"].is_object())
    return Error{"the stored global state is malformed (its node holds cannot be migrated)", {}};
  int moved = 0;
  for (auto& [node, entry] : state["nodes"].items()) {
    if (!entry.is_object() || !entry.contains("holds") || !entry["holds"].is_array()) continue;
    for (json& hold : entry["holds"])
      if (isInventoryHold(hold)) {
        hold["owner"] = "inventory";
        ++moved;
      }
  }
  if (moved == 0) return okStatus();
  TESSERA_TRY(stmt, db.prepare("UPDATE meta SET value = ? WHERE key = 'global'"));
  return stmt.bind(1, state.dump()).run();
}

}  // namespace tessera
