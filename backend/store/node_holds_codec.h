#pragma once
// The engine's node holds as the database keeps them: per node that is not up, its state and
// reason (for a reader of the database) and every hold with its owner, so a restart gives each
// owner back exactly its own hold.
#include <nlohmann/json.hpp>

#include "core/expected.h"
#include "scheduler/engine.h"

namespace tessera {

nlohmann::json nodeHoldsToJson(const Engine& e);
// Reads what nodeHoldsToJson wrote, and the older {state, reason} and bare-state entries
// (an operator's drain, or a failure for "down").
Status restoreNodeHolds(Engine& e, const nlohmann::json& stored);

}  // namespace tessera
