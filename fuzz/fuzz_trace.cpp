// The trace readers (sim/trace_*.cpp), one target per format: FUZZ_TRACE_FORMAT picks the
// TraceFormat and FUZZ_TRACE_EXT the file name's extension (the readers take a path, so the input
// is written to a file first). Each input is read twice: stopping at the first
// bad row (the refusal names what and where) and skipping bad rows (each skipped row is recorded
// with its line and why).
#include "fuzz_support.h"
#include "sim/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  const std::string& path = fuzz::writeInput(data, size, FUZZ_TRACE_EXT);
  TraceReadOptions options;
  if (auto trace = readTrace(path, TraceFormat::FUZZ_TRACE_FORMAT, options); !trace)
    fuzz::checkError(trace.error(), false);
  options.stopOnError = false;
  if (auto trace = readTrace(path, TraceFormat::FUZZ_TRACE_FORMAT, options); !trace) {
    fuzz::checkError(trace.error(), false);
  } else {
    for (const TraceProblem& p : trace->problems)
      fuzz::require(!p.message.empty(), "a skipped row without a reason", p.str());
  }
  return 0;
}
