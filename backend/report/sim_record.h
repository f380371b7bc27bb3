#pragma once
// A simulation's record as a Tessera database (`tessera simulate --record FILE`): the setup, every
// job, the usage ledger and the metric series, in the tables a live backend writes - so reports
// are computed from a simulated run exactly as from a live one (report_source.h).
#include <string>

#include "core/expected.h"
#include "sim/simulator.h"

namespace tessera {

// Writes a new database at `path` (refused when the file exists) from a finished simulation and
// the recorder that followed it. Nothing is left behind when it fails.
Status writeSimulationRecord(const Simulator& sim, const UsageRecorder& usage,
                             const std::string& path);

}  // namespace tessera
