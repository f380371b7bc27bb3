// The Standard Workload Format of the Parallel Workloads Archive (Feitelson et al.): ';' header
// comments, then one job per line in 18 whitespace-separated fields, -1 where unknown. Processors
// map to whole GPUs; mapping in docs/trace-formats.md.
#include <array>

#include "core/strings.h"
#include "sim/trace.h"
#include "sim/trace_csv.h"

namespace tessera {

namespace {

using tracefmt::TraceCollector;

constexpr size_t kFields = 18;
constexpr std::array<const char*, kFields> kFieldNames = {"job number",
                                                          "submit time",
                                                          "wait time",
                                                          "run time",
                                                          "allocated processors",
                                                          "average CPU time",
                                                          "used memory",
                                                          "requested processors",
                                                          "requested time",
                                                          "requested memory",
                                                          "status",
                                                          "user id",
                                                          "group id",
                                                          "executable",
                                                          "queue",
                                                          "partition",
                                                          "preceding job",
                                                          "think time"};

// Field numbers as the SWF definition counts them (1-based).
enum Field : size_t {
  kJob = 1,
  kSubmit = 2,
  kRunTime = 4,
  kAllocated = 5,
  kRequestedProcs = 8,
  kRequestedTime = 9,
  kStatus = 11,
  kUser = 12,
  kGroup = 13,
};

struct Token {
  std::string_view text;
  int column = 0;
};

std::vector<Token> tokens(std::string_view line) {
  std::vector<Token> out;
  size_t i = 0;
  auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (i < line.size()) {
    while (i < line.size() && blank(line[i])) ++i;
    const size_t start = i;
    while (i < line.size() && !blank(line[i])) ++i;
    if (i > start) out.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return out;
}

class SwfRow {
 public:
  SwfRow(const std::string& file, int line, std::vector<Token> fields)
      : file_(file), line_(line), fields_(std::move(fields)) {}

  [[nodiscard]] Expected<int64_t> number(size_t field) const {
    const Token& t = fields_[field - 1];
    auto v = tracefmt::parseWholeNumber(t.text);
    if (!v || *v < -1)
      return error(field, "expected a whole number or -1, got '" + std::string(t.text) + "'");
    return *v;
  }
  [[nodiscard]] Error error(size_t field, const std::string& message) const {
    return Error{message,
                 {file_, line_, fields_[field - 1].column,
                  "field " + std::to_string(field) + " (" + kFieldNames[field - 1] + ")"}};
  }
  [[nodiscard]] int line() const { return line_; }

 private:
  const std::string& file_;
  int line_;
  std::vector<Token> fields_;
};

std::string teamOf(int64_t group, int64_t user) {
  if (group >= 0) return "group-" + std::to_string(group);
  if (user >= 0) return "user-" + std::to_string(user);
  return "unknown";
}

Status readJob(const SwfRow& row, TraceCollector& c) {
  const TraceReadOptions& o = c.options();
  TESSERA_TRY(number, row.number(kJob));
  TESSERA_TRY(submit, row.number(kSubmit));
  TESSERA_TRY(runtime, row.number(kRunTime));
  TESSERA_TRY(allocated, row.number(kAllocated));
  TESSERA_TRY(requested, row.number(kRequestedProcs));
  TESSERA_TRY(limit, row.number(kRequestedTime));
  TESSERA_TRY(status, row.number(kStatus));
  TESSERA_TRY(user, row.number(kUser));
  TESSERA_TRY(group, row.number(kGroup));
  if (submit < 0) return row.error(kSubmit, "the submit time is unknown (-1)");
  // Valid SWF with unknown values (typically jobs cancelled before they ran): nothing to replay.
  const std::string job = "job " + std::to_string(number);
  if (runtime < 0) {
    c.skip(row.line(), job + ": run time unknown (-1)");
    return okStatus();
  }
  const int64_t procs = allocated > 0 ? allocated : requested;
  if (procs <= 0) {
    c.skip(row.line(), job + ": no processors allocated or requested");
    return okStatus();
  }
  if (procs > (int64_t{1} << 24)) return row.error(kAllocated, "implausibly many processors");
  TraceJob t;
  t.job.name = "job-" + std::to_string(number);
  t.job.team = teamOf(group, user);
  tracefmt::setDefaultPriorityClass(t.job, "production-training");
  t.job.workloadClass = WorkloadClass::Batch;
  const auto shape =
      tracefmt::packGpus(tracefmt::ceilDiv(procs, o.swfProcessorsPerGpu), o.gpusPerNode);
  t.job.tasks = shape.tasks;
  t.job.perTask.kind = GpuRequest::Kind::Whole;
  t.job.perTask.gpus = shape.gpusPerTask;
  t.job.submitTime = submit;
  if (limit > 0) t.job.estimatedRuntime = limit;
  t.runtime = runtime;
  t.failsAtEnd = status == 0;
  c.add(std::move(t));
  return okStatus();
}

}  // namespace

Expected<Trace> readSwf(const std::string& path, const TraceReadOptions& opts) {
  if (opts.swfProcessorsPerGpu < 1 || opts.gpusPerNode < 1 || opts.gpusPerNode > 64)
    return Error{"swfProcessorsPerGpu must be >= 1 and gpusPerNode 1..64", {path, 0, 0, ""}};
  TESSERA_TRY(lines, tracefmt::LineReader::open(path));
  TraceCollector c(path, opts);
  std::string line;
  while (!c.full() && lines.next(line)) {
    const std::string_view t = trim(line);
    if (t.empty() || t.front() == ';') continue;  // header comments
    auto fields = tokens(line);
    if (fields.size() != kFields) {
      TESSERA_CHECK(
          c.row(tracefmt::lineError(path, lines.lineNumber(), "",
                                    "expected 18 fields, found " + std::to_string(fields.size()))));
      continue;
    }
    TESSERA_CHECK(c.row(readJob(SwfRow(path, lines.lineNumber(), std::move(fields)), c)));
  }
  return std::move(c).finish();
}

}  // namespace tessera
