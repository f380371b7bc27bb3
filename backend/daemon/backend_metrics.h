#pragma once
// What tesserad exports about its backend on /metrics: the families and their help, the figures
// each cycle updates, and whether the backend is up (health).
#include <functional>

#include "daemon/logger.h"
#include "daemon/prometheus.h"
#include "service/backend.h"

namespace tessera {

void declareMetrics(MetricsRegistry& r);
// After each cycle (engine thread): queue depth, cycle time, placements, allocation.
void updateMetrics(MetricsRegistry& r, const CycleReport& c);

using CancelHealthExport = std::function<void()>;
// Keeps tessera_backend_up at 1 while `backend` serves and sets it to 0 (logging the reason) when
// it stops; call the result before `r`, `backend` or `log` go away.
[[nodiscard]] CancelHealthExport exportHealth(MetricsRegistry& r, Backend& backend,
                                              const Logger& log);

}  // namespace tessera
