#include "report/report_json.h"

#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "report/report_csv.h"

namespace tessera {
namespace {

using nlohmann::json;

// ---- writing ----------------------------------------------------------------------------------

// Absent optionals are left out rather than written as null: fewer bytes, one way to say "none".
void putOptional(json& j, const char* key, const std::optional<double>& v) {
  if (v) j[key] = *v;
}

json headerJson(const ReportHeader& h) {
  return {{"cluster", h.cluster},
          {"source", h.source},
          {"from", h.from},
          {"to", h.to},
          {"wall_clock", h.wallClock},
          {"time_zone", h.timeZone},
          {"generated_at", h.generatedAt},
          {"group_by", reportGroupName(h.groupBy)},
          {"idle_threshold", h.idleThreshold},
          {"idle_min_duration", h.idleMinDuration},
          {"currency", h.currency},
          {"gpus", h.gpus}};
}

json figuresJson(const UsageFigures& f) {
  json j = {{"allocated", f.allocated},
            {"busy", f.busy},
            {"effective", f.effective},
            {"measured", f.measured},
            {"idle", f.idle},
            {"whole_gpu", f.wholeGpu},
            {"mig", f.mig},
            {"fractional", f.fractional},
            {"mps", f.mps},
            {"mig_slice_hours", f.migSliceHours},
            {"preemptions", f.preemptions},
            {"gpu_hours_lost", f.gpuHoursLost},
            {"jobs", f.jobs}};
  putOptional(j, "cost", f.cost);
  putOptional(j, "idle_cost", f.idleCost);
  return j;
}

template <class Row, class F>
json arrayJson(const std::vector<Row>& rows, F each) {
  json a = json::array();
  for (const Row& r : rows) a.push_back(each(r));
  return a;
}

json rowJson(const UsageRow& r) {
  return {{"key", r.key}, {"figures", figuresJson(r.figures)}};
}
json rowJson(const MigProfileRow& r) {
  json j = {{"key", r.key},
            {"model", r.model},
            {"profile", r.profile},
            {"instance_hours", r.instanceHours},
            {"slice_hours", r.sliceHours}};
  putOptional(j, "cost", r.cost);
  return j;
}
json rowJson(const IdleJobRow& r) {
  json j = {{"job", r.job},           {"team", r.team},
            {"gpus", r.gpus},         {"idle_gpu_hours", r.idleGpuHours},
            {"episodes", r.episodes}, {"longest", r.longest}};
  putOptional(j, "idle_cost", r.idleCost);
  return j;
}
json rowJson(const StrandedRow& r) {
  return {{"cause", r.cause}, {"gpu_hours", r.gpuHours}, {"share_of_capacity", r.shareOfCapacity}};
}
json rowJson(const WaitRow& r) {
  return {{"priority_class", r.priorityClass},
          {"started", r.started},
          {"p50", r.p50},
          {"p95", r.p95},
          {"p99", r.p99},
          {"max", r.max},
          {"mean", r.mean},
          {"waiting_at_end", r.waitingAtEnd},
          {"longest_waiting_at_end", r.longestWaitingAtEnd}};
}
json rowJson(const ChargebackRow& r) {
  return {{"team", r.team},
          {"department", r.department},
          {"allocated", r.allocated},
          {"idle", r.idle},
          {"cost", r.cost},
          {"idle_cost", r.idleCost},
          {"share_of_cost", r.shareOfCost}};
}
json rowJson(const FairShareRow& r) {
  return {{"team", r.team},
          {"weight", r.weight},
          {"gpu_hours", r.gpuHours},
          {"usage_share", r.usageShare},
          {"deserved_share", r.deservedShare},
          {"ratio", r.ratio}};
}
json rowJson(const ReportPoint& p) {
  return {{"start", p.start},
          {"capacity", p.capacity},
          {"allocated", p.allocated},
          {"busy", p.busy},
          {"effective", p.effective}};
}

json reportJson(const Report& r) {
  auto rows = [](const auto& v) {
    return arrayJson(v, [](const auto& row) { return rowJson(row); });
  };
  return {{"schema", kReportJsonSchema},
          {"header", headerJson(r.header)},
          {"capacity_gpu_hours", r.capacityGpuHours},
          {"total", figuresJson(r.total)},
          {"usage", rows(r.usage)},
          {"mig", rows(r.mig)},
          {"idle_jobs", rows(r.idleJobs)},
          {"idle_jobs_total", r.idleJobsTotal},
          {"stranded", rows(r.stranded)},
          {"waits", rows(r.waits)},
          {"chargeback", rows(r.chargeback)},
          {"fair_share", rows(r.fairShare)},
          {"series_step", r.seriesStep},
          {"series", rows(r.series)},
          {"notes", r.notes}};
}

// ---- reading ----------------------------------------------------------------------------------

// Thrown inside this file only, caught in reportFromJson: it keeps the field-by-field reading
// free of a check after every line.
struct FieldError {
  std::string path;
  std::string message;
};

const char* typeName(const json& j) {
  if (j.is_number_float()) return "a number with a fraction";
  if (j.is_number_unsigned()) return "an integer";
  if (j.is_number_integer()) return "a negative integer";
  return j.type_name();  // "null", "string", "boolean", "object", "array"
}

// One JSON object being read, with its path for messages.
class In {
 public:
  In(const json& j, std::string path) : j_(j), path_(std::move(path)) {}

  [[nodiscard]] const json& at(const char* key) const {
    auto it = j_.find(key);
    if (it == j_.end()) throw FieldError{sub(key), "missing field"};
    return *it;
  }
  [[nodiscard]] double num(const char* key) const {
    const json& v = at(key);
    if (!v.is_number()) wrongType(key, "a number", v);
    return v.get<double>();
  }
  [[nodiscard]] std::optional<double> optNum(const char* key) const {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return std::nullopt;
    return num(key);
  }
  [[nodiscard]] std::string str(const char* key) const {
    const json& v = at(key);
    if (!v.is_string()) wrongType(key, "a string", v);
    return v.get<std::string>();
  }
  [[nodiscard]] bool boolean(const char* key) const {
    const json& v = at(key);
    if (!v.is_boolean()) wrongType(key, "true or false", v);
    return v.get<bool>();
  }
  [[nodiscard]] int64_t i64(const char* key) const {
    const json& v = at(key);
    if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max()))
      throw FieldError{sub(key), "is out of range"};
    if (!v.is_number_integer()) wrongType(key, "an integer", v);
    return v.get<int64_t>();
  }
  [[nodiscard]] uint64_t u64(const char* key) const {
    const json& v = at(key);
    if (!v.is_number_unsigned()) wrongType(key, "a non-negative integer", v);
    return v.get<uint64_t>();
  }
  [[nodiscard]] int i32(const char* key) const {
    int64_t v = i64(key);
    if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
      throw FieldError{sub(key), "is out of range"};
    return static_cast<int>(v);
  }
  [[nodiscard]] In obj(const char* key) const {
    const json& v = at(key);
    if (!v.is_object()) wrongType(key, "an object", v);
    return In(v, sub(key));
  }
  // Every element of the array `key` through `each(const json&, path)`.
  template <class T, class F>
  [[nodiscard]] std::vector<T> array(const char* key, F each) const {
    const json& v = at(key);
    if (!v.is_array()) wrongType(key, "an array", v);
    std::vector<T> out;
    out.reserve(v.size());
    for (size_t i = 0; i < v.size(); ++i) {
      out.push_back(each(v[i], sub(key) + "[" + std::to_string(i) + "]"));
    }
    return out;
  }
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  [[nodiscard]] std::string sub(const char* key) const {
    return path_.empty() ? std::string(key) : path_ + "." + key;
  }
  [[noreturn]] void wrongType(const char* key, const char* want, const json& got) const {
    throw FieldError{sub(key), std::string("expected ") + want + ", got " + typeName(got)};
  }

  const json& j_;
  std::string path_;
};

// An array element that must be an object.
In element(const json& j, const std::string& path) {
  if (!j.is_object()) throw FieldError{path, std::string("expected an object, got ") + typeName(j)};
  return In(j, path);
}

ReportHeader readHeader(const In& in) {
  ReportHeader h;
  h.cluster = in.str("cluster");
  h.source = in.str("source");
  h.from = in.i64("from");
  h.to = in.i64("to");
  h.wallClock = in.boolean("wall_clock");
  h.timeZone = in.str("time_zone");
  h.generatedAt = in.str("generated_at");
  std::string group = in.str("group_by");
  auto g = parseReportGroup(group);
  if (!g) throw FieldError{in.path() + ".group_by", "unknown group '" + group + "'"};
  h.groupBy = *g;
  h.idleThreshold = in.num("idle_threshold");
  h.idleMinDuration = in.i64("idle_min_duration");
  h.currency = in.str("currency");
  h.gpus = in.i32("gpus");
  return h;
}

UsageFigures readFigures(const In& in) {
  UsageFigures f;
  f.allocated = in.num("allocated");
  f.busy = in.num("busy");
  f.effective = in.num("effective");
  f.measured = in.num("measured");
  f.idle = in.num("idle");
  f.wholeGpu = in.num("whole_gpu");
  f.mig = in.num("mig");
  f.fractional = in.num("fractional");
  f.mps = in.optNum("mps").value_or(0);  // reports written before MPS have none
  f.migSliceHours = in.num("mig_slice_hours");
  f.preemptions = in.i32("preemptions");
  f.gpuHoursLost = in.num("gpu_hours_lost");
  f.jobs = in.u64("jobs");
  f.cost = in.optNum("cost");
  f.idleCost = in.optNum("idle_cost");
  return f;
}

UsageRow readUsage(const json& j, const std::string& path) {
  In in = element(j, path);
  return {in.str("key"), readFigures(in.obj("figures"))};
}
MigProfileRow readMig(const json& j, const std::string& path) {
  In in = element(j, path);
  return {in.str("key"),         in.str("model"),  in.str("profile"), in.num("instance_hours"),
          in.num("slice_hours"), in.optNum("cost")};
}
IdleJobRow readIdleJob(const json& j, const std::string& path) {
  In in = element(j, path);
  return {in.u64("job"),      in.str("team"),    in.num("gpus"),        in.num("idle_gpu_hours"),
          in.i32("episodes"), in.i64("longest"), in.optNum("idle_cost")};
}
StrandedRow readStranded(const json& j, const std::string& path) {
  In in = element(j, path);
  return {in.str("cause"), in.num("gpu_hours"), in.num("share_of_capacity")};
}
WaitRow readWait(const json& j, const std::string& path) {
  In in = element(j, path);
  WaitRow w;
  w.priorityClass = in.str("priority_class");
  w.started = in.u64("started");
  w.p50 = in.num("p50");
  w.p95 = in.num("p95");
  w.p99 = in.num("p99");
  w.max = in.num("max");
  w.mean = in.num("mean");
  w.waitingAtEnd = in.u64("waiting_at_end");
  w.longestWaitingAtEnd = in.num("longest_waiting_at_end");
  return w;
}
ChargebackRow readChargeback(const json& j, const std::string& path) {
  In in = element(j, path);
  return {in.str("team"), in.str("department"), in.num("allocated"),    in.num("idle"),
          in.num("cost"), in.num("idle_cost"),  in.num("share_of_cost")};
}
FairShareRow readFairShare(const json& j, const std::string& path) {
  In in = element(j, path);
  return {in.str("team"),        in.num("weight"),         in.num("gpu_hours"),
          in.num("usage_share"), in.num("deserved_share"), in.num("ratio")};
}
ReportPoint readPoint(const json& j, const std::string& path) {
  In in = element(j, path);
  return {in.i64("start"), in.num("capacity"), in.num("allocated"), in.num("busy"),
          in.num("effective")};
}
std::string readNote(const json& j, const std::string& path) {
  if (!j.is_string()) throw FieldError{path, std::string("expected a string, got ") + typeName(j)};
  return j.get<std::string>();
}

void checkSchema(const In& in) {
  std::string schema = in.str("schema");
  if (schema != kReportJsonSchema) {
    throw FieldError{"schema", "is '" + schema + "'; this program reads '" +
                                   std::string(kReportJsonSchema) + "'"};
  }
}

Report readReport(const In& in) {
  checkSchema(in);
  Report r;
  r.header = readHeader(in.obj("header"));
  r.capacityGpuHours = in.num("capacity_gpu_hours");
  r.total = readFigures(in.obj("total"));
  r.usage = in.array<UsageRow>("usage", readUsage);
  r.mig = in.array<MigProfileRow>("mig", readMig);
  r.idleJobs = in.array<IdleJobRow>("idle_jobs", readIdleJob);
  r.idleJobsTotal = in.u64("idle_jobs_total");
  r.stranded = in.array<StrandedRow>("stranded", readStranded);
  r.waits = in.array<WaitRow>("waits", readWait);
  r.chargeback = in.array<ChargebackRow>("chargeback", readChargeback);
  r.fairShare = in.array<FairShareRow>("fair_share", readFairShare);
  r.seriesStep = in.i64("series_step");
  r.series = in.array<ReportPoint>("series", readPoint);
  r.notes = in.array<std::string>("notes", readNote);
  return r;
}

// nlohmann reports a byte offset; people look for lines and columns.
SourceLocation locationOf(std::string_view text, size_t byte, const std::string& where) {
  SourceLocation loc{where, 1, 1, {}};
  for (size_t i = 0; i + 1 < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++loc.line;
      loc.column = 1;
    } else {
      ++loc.column;
    }
  }
  return loc;
}

}  // namespace

std::string reportToJson(const Report& report, bool pretty) {
  // Replace, not throw, on invalid UTF-8 in a name that came from outside.
  std::string text =
      reportJson(report).dump(pretty ? 2 : -1, ' ', false, json::error_handler_t::replace);
  if (pretty) text += '\n';
  return text;
}

void writeReportJson(std::ostream& out, const Report& report, bool pretty) {
  out << reportToJson(report, pretty);
}

Status writeReportJsonFile(const Report& report, const std::string& path) {
  std::string text = reportToJson(report, true);
  return writeFileAtomically(path, [&](std::ostream& out) { out << text; });
}

Expected<Report> reportFromJson(std::string_view text, const std::string& where) {
  json j;
  try {
    j = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    auto colon = what.find(": ");  // drop nlohmann's "[json.exception...] parse error at ...: "
    std::string detail = colon == std::string::npos ? what : what.substr(colon + 2);
    return Error{"not valid JSON: " + detail, locationOf(text, e.byte, where)};
  } catch (const json::exception& e) {
    // out_of_range.406: a number beyond a double ("1E99999"), which parse() throws as no
    // parse_error (found by fuzz_report_json).
    std::string what = e.what();
    auto bracket = what.find("] ");
    return Error{
        "not valid JSON: " + (bracket == std::string::npos ? what : what.substr(bracket + 2)),
        {where, 0, 0, {}}};
  }
  if (!j.is_object()) {
    return Error{std::string("expected a JSON object, got ") + typeName(j), {where, 0, 0, {}}};
  }
  try {
    return readReport(In(j, ""));
  } catch (const FieldError& e) {
    return Error{e.message, {where, 0, 0, e.path}};
  }
}

Expected<Report> loadReportJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open " + path, {}};
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Error{"cannot read " + path, {}};
  return reportFromJson(text.str(), path);
}

}  // namespace tessera
