#pragma once
// The engine's reservations as the snapshot carries them (ReservationView, service/session.h):
// the last backfill plan's holds for blocked jobs and the operator's maintenance and team
// windows, with their GPUs named by node so a client needs no cluster to place them.
#include <vector>

#include "service/session.h"

namespace tessera {

class Engine;

// Backfill reservations first (by start, then job), then the operator's (by start, then id).
[[nodiscard]] std::vector<ReservationView> reservationViews(const Engine& engine);

}  // namespace tessera
