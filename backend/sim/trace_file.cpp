#include "sim/trace_file.h"

#include <filesystem>
#include <optional>

namespace tessera {

Expected<Trace> loadTraceFile(const std::string& path, const std::string& format,
                              const TraceReadOptions& opts) {
  if (!format.empty() && !parseTraceFormat(format))
    return Error{"--format: unknown format '" + format + "' (openb, helios, philly, swf, jobs)",
                 {}};
  if (!std::filesystem::is_regular_file(path)) return Error{"cannot open file", {path, 0, 0, ""}};
  const std::optional<TraceFormat> f =
      format.empty() ? detectTraceFormat(path) : parseTraceFormat(format);
  if (!f)  // read, but not a format we know: an invalid input
    return Error{"cannot tell the trace format (give --format openb|helios|philly|swf|jobs)",
                 {path, 0, 0, ""}};
  return readTrace(path, *f, opts);
}

}  // namespace tessera
