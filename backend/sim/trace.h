#pragma once
// Workload traces for the simulator: what each job asks for, when it arrives and how long it
// really runs. Readers for public formats (openb pod lists, Helios cluster_log.csv, Philly job
// logs, the Standard Workload Format) and Tessera's own job lists all produce a Trace; the
// synthetic generator does too. Formats and field mappings: docs/trace-formats.md.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "workload/workload_spec.h"

namespace tessera {

// How a job uses the GPUs it holds, for telemetry synthesis (see telemetry.h).
enum class UsageProfile : uint8_t {
  ComputeBound,  // training step loop: high SM and tensor activity
  InputBound,    // waits on data: "GPU util" high, SM active low
  Inference,     // bursty serving
  IdleNotebook,  // holds a GPU, mostly does nothing
};
const char* usageProfileName(UsageProfile p);
std::optional<UsageProfile> parseUsageProfile(std::string_view name);

struct TraceJob {
  Job job;  // request, team, class, submit time; estimatedRuntime = the user's limit, if known
  Seconds runtime = 0;      // how long it really runs once started (uninterrupted)
  bool failsAtEnd = false;  // the trace says it ended failed (it still holds GPUs until then)
  UsageProfile usage = UsageProfile::ComputeBound;
};

// A row the reader could not use: where and why.
struct TraceProblem {
  std::string file;
  int line = 0;
  std::string message;
  [[nodiscard]] std::string str() const;  // "file:line: message"
};

struct Trace {
  std::string source;                          // file name or "synthetic"
  std::vector<PriorityClass> priorityClasses;  // empty = defaults
  std::vector<Team> teams;                     // teams the trace's jobs name (no quotas)
  std::vector<TraceJob> jobs;                  // ordered by submit time, then id
  std::vector<TraceProblem> problems;          // rows skipped (when not stopping at the first)
};

struct TraceReadOptions {
  bool stopOnError = true;  // false: skip malformed rows, collect them in Trace::problems
  size_t limit = 0;         // read at most this many jobs (0 = all)
  Seconds timeOrigin = -1;  // subtract from every time; -1 = the earliest submit time
  // SWF only: processors per whole GPU (processors map to GPUs) and the most GPUs one task (node)
  // gets; larger jobs become gangs of equal tasks.
  int swfProcessorsPerGpu = 1;
  int gpusPerNode = 8;
};

enum class TraceFormat : uint8_t { Openb, Helios, Philly, Swf, JobList };
const char* traceFormatName(TraceFormat f);
std::optional<TraceFormat> parseTraceFormat(std::string_view name);
// Guesses from the file name and first line (header columns, SWF ';' comments, YAML/JSON).
std::optional<TraceFormat> detectTraceFormat(const std::string& path);

// Each reader fails with file:line and the column at the first malformed row when
// opts.stopOnError, otherwise skips it and records it. A missing or empty file is always an error.
Expected<Trace> readOpenbPods(const std::string& path, const TraceReadOptions& opts = {});
Expected<Trace> readHeliosLog(const std::string& path, const TraceReadOptions& opts = {});
Expected<Trace> readPhillyLog(const std::string& path, const TraceReadOptions& opts = {});
Expected<Trace> readSwf(const std::string& path, const TraceReadOptions& opts = {});
// Tessera's own list: the workload format (docs/workload-spec.md) as YAML or JSON, where each
// job may add `actual_runtime` (defaults to its runtime estimate) and `usage` (a UsageProfile).
Expected<Trace> readJobList(const std::string& path, const TraceReadOptions& opts = {});
Expected<Trace> readTrace(const std::string& path, TraceFormat format,
                          const TraceReadOptions& opts = {});

}  // namespace tessera
