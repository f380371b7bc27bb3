#pragma once
// A trace file read the way `tessera simulate --workload FILE [--format F]` reads it, shared by
// the CLI and the console's sharing study so both accept the same files and say the same about
// those they refuse.
#include <string>

#include "sim/trace.h"

namespace tessera {

// `format`: openb, helios, philly, swf or jobs; empty = detected from the file. Fails naming the
// file (a missing one, an undetectable format), or at file:line of the first malformed row when
// opts.stopOnError (trace.h), or naming --format for a format it does not know.
Expected<Trace> loadTraceFile(const std::string& path, const std::string& format,
                              const TraceReadOptions& opts = {});

}  // namespace tessera
