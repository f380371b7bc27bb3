#pragma once
// The ClusterSnapshot the console and the API show: nodes with their holds, GPUs with their
// occupants, MIG layouts, readings and faults (from the World), teams, reservations and the
// executor's state.
#include <cstdint>

#include "scheduler/engine.h"
#include "service/session.h"
#include "service/world.h"

namespace tessera {

ClusterSnapshot snapshotOf(const Engine& engine, const World& world, uint64_t lastEventSeq);

}  // namespace tessera
