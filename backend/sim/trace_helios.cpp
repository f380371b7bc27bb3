// Helios (SenseTime, SC '21; S-Lab-System-Group/HeliosData) cluster_log.csv. Schema and mapping:
// docs/trace-formats.md.
#include <algorithm>

#include "core/strings.h"
#include "sim/trace.h"
#include "sim/trace_csv.h"

namespace tessera {

namespace {

using tracefmt::CsvRow;
using tracefmt::TraceCollector;

constexpr int64_t kMaxTime = int64_t{1} << 40;  // far beyond any trace, far from overflow

// Slurm end states in the log. Jobs that had not ended when the log was taken have no runtime.
struct StateMapping {
  const char* state;
  bool terminal;
  bool failed;
};
constexpr StateMapping kStates[] = {
    {"COMPLETED", true, false}, {"CANCELLED", true, false},  {"FAILED", true, true},
    {"TIMEOUT", true, true},    {"NODE_FAIL", true, true},   {"RUNNING", false, false},
    {"PENDING", false, false},  {"SUSPENDED", false, false},
};

const StateMapping* findState(std::string_view s) {
  for (const auto& m : kStates)
    if (s == m.state) return &m;
  return nullptr;
}

// gpu_num GPUs over node_num nodes: a gang of one task per node (node_num 0, as the log writes
// for jobs that never got a node, counts as 1).
Status readRequest(const CsvRow& row, Job& j) {
  TESSERA_TRY(gpus, row.integer("gpu_num", 0, 1 << 20));
  int64_t nodes = 1;
  if (row.has("node_num")) {
    TESSERA_TRY(n, row.integer("node_num", 0, 100'000));
    nodes = std::max<int64_t>(1, n);
  }
  j.tasks = static_cast<int>(nodes);
  if (gpus > 0) {
    j.perTask.kind = GpuRequest::Kind::Whole;
    j.perTask.gpus = static_cast<int>(tracefmt::ceilDiv(gpus, nodes));
    j.workloadClass = WorkloadClass::Training;
  } else {
    j.workloadClass = WorkloadClass::Batch;  // CPU-only
  }
  if (row.has("cpu_num")) {
    TESSERA_TRY(cpus, row.integer("cpu_num", 0, 1 << 24));
    j.cpusPerTask = static_cast<int>(tracefmt::ceilDiv(cpus, nodes));
  }
  return okStatus();
}

// Runtime = end - start. A job that never started (no start time: cancelled in the queue) keeps
// its arrival with runtime 0.
Status readRuntime(const CsvRow& row, TraceJob& t) {
  TESSERA_TRY(submit, row.time("submit_time"));
  t.job.submitTime = submit;
  if (!row.has("start_time")) return okStatus();
  TESSERA_TRY(start, row.time("start_time"));
  TESSERA_TRY(end, row.time("end_time"));
  if (start < submit)
    return row.error("start_time", "is before submit_time " + std::string(row.text("submit_time")));
  if (end < start)
    return row.error("end_time", "is before start_time " + std::string(row.text("start_time")));
  if (end - start > kMaxTime) return row.error("end_time", "is implausibly far after start_time");
  t.runtime = end - start;
  return okStatus();
}

Status readJob(const CsvRow& row, TraceCollector& c) {
  TESSERA_TRY(state, row.required("state"));
  const StateMapping* s = findState(state);
  if (!s)
    return row.error("state", "unknown state '" + state +
                                  "' (expected COMPLETED, CANCELLED, FAILED, TIMEOUT, NODE_FAIL, "
                                  "RUNNING, PENDING or SUSPENDED)");
  TraceJob t;
  TESSERA_TRY(id, row.required("job_id"));
  t.job.name = row.has("user") ? std::string(row.text("user")) + "/" + id : id;
  TESSERA_TRY(vc, row.required("vc"));
  t.job.team = vc;
  TESSERA_CHECK(readRequest(row, t.job));
  // The request and submit time are checked before a skip: a malformed row never passes as one.
  if (!s->terminal) {
    TESSERA_CHECK(row.time("submit_time"));
    c.skip(row.line(), "job " + id + " is " + state + " in the log: its runtime is unknown");
    return okStatus();
  }
  TESSERA_CHECK(readRuntime(row, t));
  t.failsAtEnd = s->failed;
  tracefmt::setDefaultPriorityClass(t.job, "production-training");
  c.add(std::move(t));
  return okStatus();
}

}  // namespace

Expected<Trace> readHeliosLog(const std::string& path, const TraceReadOptions& opts) {
  TraceCollector c(path, opts);
  TESSERA_CHECK(tracefmt::readCsvRows(
      path, {"job_id", "vc", "gpu_num", "state", "submit_time", "start_time", "end_time"}, c,
      [&](const CsvRow& row) { return readJob(row, c); }));
  return std::move(c).finish();
}

}  // namespace tessera
