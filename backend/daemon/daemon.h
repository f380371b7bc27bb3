#pragma once
// tesserad's life: load and check the configuration, open the backend (rebuilding the engine
// from the database), serve the API and the Prometheus endpoint, and on SIGTERM or SIGINT stop
// accepting calls, finish and commit the work in flight, and exit 0.
#include <ostream>

#include "daemon/config.h"
#include "executor/slurm_executor.h"

namespace tessera {

// Exit codes (also in `tesserad --help`).
inline constexpr int kTesseradOk = 0;
inline constexpr int kTesseradInvalidConfig = 1;  // read, but wrong (names file:line and key)
inline constexpr int kTesseradUsage = 2;          // bad flag, unreadable file
inline constexpr int kTesseradCannotServe = 3;    // database refused, port in use, TLS files

// The executor's settings from the file's `slurm:` section.
SlurmExecutorConfig slurmExecutorConfig(const SlurmSettings& s);

// With `checkOnly`, validates everything and prints a summary to `out` without serving.
int runTesserad(const TesseradConfig& config, bool checkOnly, std::ostream& out);

}  // namespace tessera
