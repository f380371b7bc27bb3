#include "report/report_csv.h"

#include <unistd.h>

#include <atomic>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "report/report_time.h"

namespace tessera {
namespace {

namespace fs = std::filesystem;

// One column: its header name and how a row becomes the cell's text (already a CSV value,
// not yet quoted).
template <class Row>
struct Column {
  std::string name;
  std::function<std::string(const Row&)> cell;
};
template <class Row>
using Columns = std::vector<Column<Row>>;

std::string integer(int64_t v) {
  return std::to_string(v);
}
std::string unsignedInteger(uint64_t v) {
  return std::to_string(v);
}
std::string optionalNumber(const std::optional<double>& v) {
  return v ? csvNumber(*v) : std::string();
}
// Simulated time has no calendar date, so its ISO column stays empty.
std::string isoOrEmpty(const ReportHeader& h, Seconds t) {
  return h.wallClock ? isoUtc(t) : std::string();
}
bool hasCurrency(const Report& r) {
  return !r.header.currency.empty();
}

// The UsageFigures columns, shared by the summary (the cluster total) and the usage table.
// gpu_hours_mps came later: it is the last column of both tables (addMpsColumn).
template <class Row>
void addFigureColumns(Columns<Row>& cols, bool withCost,
                      std::function<const UsageFigures&(const Row&)> f) {
  auto num = [&cols, f](std::string name, double UsageFigures::*member) {
    cols.push_back(
        {std::move(name), [f, member](const Row& r) { return csvNumber(f(r).*member); }});
  };
  num("gpu_hours_allocated", &UsageFigures::allocated);
  num("gpu_hours_busy", &UsageFigures::busy);
  num("gpu_hours_effective", &UsageFigures::effective);
  num("gpu_hours_measured", &UsageFigures::measured);
  num("gpu_hours_idle", &UsageFigures::idle);
  num("gpu_hours_whole_gpu", &UsageFigures::wholeGpu);
  num("gpu_hours_mig", &UsageFigures::mig);
  num("gpu_hours_fractional", &UsageFigures::fractional);
  num("mig_slice_hours", &UsageFigures::migSliceHours);
  cols.push_back({"preemptions", [f](const Row& r) { return integer(f(r).preemptions); }});
  num("gpu_hours_lost_to_preemption", &UsageFigures::gpuHoursLost);
  cols.push_back({"jobs", [f](const Row& r) { return unsignedInteger(f(r).jobs); }});
  if (!withCost) return;
  cols.push_back({"cost", [f](const Row& r) { return optionalNumber(f(r).cost); }});
  cols.push_back({"idle_cost", [f](const Row& r) { return optionalNumber(f(r).idleCost); }});
}

template <class Row>
void addMpsColumn(Columns<Row>& cols, std::function<const UsageFigures&(const Row&)> f) {
  cols.push_back({"gpu_hours_mps", [f](const Row& r) { return csvNumber(f(r).mps); }});
}

Columns<Report> summaryColumns(const Report& report) {
  using R = Report;
  Columns<R> c = {
      {"cluster", [](const R& r) { return r.header.cluster; }},
      {"source", [](const R& r) { return r.header.source; }},
      {"from_utc", [](const R& r) { return isoOrEmpty(r.header, r.header.from); }},
      {"to_utc", [](const R& r) { return isoOrEmpty(r.header, r.header.to); }},
      {"from_seconds", [](const R& r) { return integer(r.header.from); }},
      {"to_seconds", [](const R& r) { return integer(r.header.to); }},
      {"wall_clock", [](const R& r) { return std::string(r.header.wallClock ? "true" : "false"); }},
      {"time_zone", [](const R& r) { return r.header.timeZone; }},
      {"generated_at_utc", [](const R& r) { return r.header.generatedAt; }},
      {"group_by", [](const R& r) { return std::string(reportGroupName(r.header.groupBy)); }},
      {"idle_threshold", [](const R& r) { return csvNumber(r.header.idleThreshold); }},
      {"idle_min_duration_seconds", [](const R& r) { return integer(r.header.idleMinDuration); }},
      {"currency", [](const R& r) { return r.header.currency; }},
      {"gpus", [](const R& r) { return integer(r.header.gpus); }},
      {"capacity_gpu_hours", [](const R& r) { return csvNumber(r.capacityGpuHours); }},
  };
  auto total = [](const R& r) -> const UsageFigures& { return r.total; };
  addFigureColumns<R>(c, hasCurrency(report), total);
  c.push_back({"idle_jobs_total", [](const R& r) { return unsignedInteger(r.idleJobsTotal); }});
  c.push_back({"series_step_seconds", [](const R& r) { return integer(r.seriesStep); }});
  addMpsColumn<R>(c, total);
  return c;
}

Columns<UsageRow> usageColumns(const Report& report) {
  Columns<UsageRow> c = {
      {reportGroupName(report.header.groupBy), [](const UsageRow& r) { return r.key; }}};
  auto figures = [](const UsageRow& r) -> const UsageFigures& { return r.figures; };
  addFigureColumns<UsageRow>(c, hasCurrency(report), figures);
  addMpsColumn<UsageRow>(c, figures);
  return c;
}

Columns<MigProfileRow> migColumns(const Report& report) {
  using R = MigProfileRow;
  Columns<R> c = {
      {reportGroupName(report.header.groupBy), [](const R& r) { return r.key; }},
      {"gpu_model", [](const R& r) { return r.model; }},
      {"mig_profile", [](const R& r) { return r.profile; }},
      {"instance_hours", [](const R& r) { return csvNumber(r.instanceHours); }},
      {"mig_slice_hours", [](const R& r) { return csvNumber(r.sliceHours); }},
  };
  if (hasCurrency(report)) c.push_back({"cost", [](const R& r) { return optionalNumber(r.cost); }});
  return c;
}

Columns<IdleJobRow> idleJobColumns(const Report& report) {
  using R = IdleJobRow;
  Columns<R> c = {
      {"job_id", [](const R& r) { return unsignedInteger(r.job); }},
      {"team", [](const R& r) { return r.team; }},
      {"gpus", [](const R& r) { return csvNumber(r.gpus); }},
      {"gpu_hours_idle", [](const R& r) { return csvNumber(r.idleGpuHours); }},
      {"idle_episodes", [](const R& r) { return integer(r.episodes); }},
      {"longest_idle_seconds", [](const R& r) { return integer(r.longest); }},
  };
  if (hasCurrency(report)) {
    c.push_back({"idle_cost", [](const R& r) { return optionalNumber(r.idleCost); }});
  }
  return c;
}

Columns<StrandedRow> strandedColumns() {
  using R = StrandedRow;
  return {
      {"cause", [](const R& r) { return r.cause; }},
      {"gpu_hours_stranded", [](const R& r) { return csvNumber(r.gpuHours); }},
      {"share_of_capacity", [](const R& r) { return csvNumber(r.shareOfCapacity); }},
  };
}

Columns<WaitRow> waitColumns() {
  using R = WaitRow;
  return {
      {"priority_class", [](const R& r) { return r.priorityClass; }},
      {"jobs_started", [](const R& r) { return unsignedInteger(r.started); }},
      {"wait_p50_seconds", [](const R& r) { return csvNumber(r.p50); }},
      {"wait_p95_seconds", [](const R& r) { return csvNumber(r.p95); }},
      {"wait_p99_seconds", [](const R& r) { return csvNumber(r.p99); }},
      {"wait_max_seconds", [](const R& r) { return csvNumber(r.max); }},
      {"wait_mean_seconds", [](const R& r) { return csvNumber(r.mean); }},
      {"jobs_waiting_at_end", [](const R& r) { return unsignedInteger(r.waitingAtEnd); }},
      {"longest_waiting_at_end_seconds",
       [](const R& r) { return csvNumber(r.longestWaitingAtEnd); }},
  };
}

// The currency repeats on every row: the chargeback file is the one handed on alone.
Columns<ChargebackRow> chargebackColumns(const Report& report) {
  using R = ChargebackRow;
  const std::string currency = report.header.currency;
  return {
      {"team", [](const R& r) { return r.team; }},
      {"department", [](const R& r) { return r.department; }},
      {"gpu_hours_allocated", [](const R& r) { return csvNumber(r.allocated); }},
      {"gpu_hours_idle", [](const R& r) { return csvNumber(r.idle); }},
      {"currency", [currency](const R&) { return currency; }},
      {"cost", [](const R& r) { return csvNumber(r.cost); }},
      {"idle_cost", [](const R& r) { return csvNumber(r.idleCost); }},
      {"share_of_cost", [](const R& r) { return csvNumber(r.shareOfCost); }},
  };
}

Columns<FairShareRow> fairShareColumns() {
  using R = FairShareRow;
  return {
      {"team", [](const R& r) { return r.team; }},
      {"weight", [](const R& r) { return csvNumber(r.weight); }},
      {"gpu_hours", [](const R& r) { return csvNumber(r.gpuHours); }},
      {"usage_share", [](const R& r) { return csvNumber(r.usageShare); }},
      {"deserved_share", [](const R& r) { return csvNumber(r.deservedShare); }},
      {"usage_to_deserved_ratio", [](const R& r) { return csvNumber(r.ratio); }},
  };
}

Columns<ReportPoint> seriesColumns(const Report& report) {
  using R = ReportPoint;
  const ReportHeader header = report.header;
  return {
      {"start_seconds", [](const R& r) { return integer(r.start); }},
      {"start_utc", [header](const R& r) { return isoOrEmpty(header, r.start); }},
      {"capacity_gpus", [](const R& r) { return csvNumber(r.capacity); }},
      {"allocated_gpus", [](const R& r) { return csvNumber(r.allocated); }},
      {"busy_gpus", [](const R& r) { return csvNumber(r.busy); }},
      {"effective_gpus", [](const R& r) { return csvNumber(r.effective); }},
  };
}

Columns<std::string> noteColumns() {
  return {{"note", [](const std::string& n) { return n; }}};
}

// RFC 4180: quote a field holding a separator, a quote or a line break; double the quotes.
void writeField(std::ostream& out, const std::string& field) {
  if (field.find_first_of(",\"\r\n") == std::string::npos) {
    out << field;
    return;
  }
  out << '"';
  for (char ch : field) {
    if (ch == '"') out << '"';
    out << ch;
  }
  out << '"';
}

template <class Row>
void writeTable(std::ostream& out, const Columns<Row>& cols, const std::vector<Row>& rows) {
  auto line = [&](auto&& text) {
    for (size_t i = 0; i < cols.size(); ++i) {
      if (i > 0) out << ',';
      writeField(out, text(i));
    }
    out << "\r\n";
  };
  line([&](size_t i) { return cols[i].name; });
  for (const Row& row : rows) line([&](size_t i) { return cols[i].cell(row); });
}

template <class Row>
std::vector<std::string> names(const Columns<Row>& cols) {
  std::vector<std::string> out;
  for (const auto& c : cols) out.push_back(c.name);
  return out;
}

// One dispatch for both the header names and the writing, so the two cannot disagree.
// `visit(columns, rows)` is called for a known table; returns false for an unknown one.
template <class Visit>
bool withTable(const Report& r, std::string_view table, Visit&& visit) {
  if (table == "summary")
    visit(summaryColumns(r), std::vector<Report>{r});
  else if (table == "usage")
    visit(usageColumns(r), r.usage);
  else if (table == "mig")
    visit(migColumns(r), r.mig);
  else if (table == "idle_jobs")
    visit(idleJobColumns(r), r.idleJobs);
  else if (table == "stranded")
    visit(strandedColumns(), r.stranded);
  else if (table == "waits")
    visit(waitColumns(), r.waits);
  else if (table == "chargeback" && hasCurrency(r))
    visit(chargebackColumns(r), r.chargeback);
  else if (table == "fair_share")
    visit(fairShareColumns(), r.fairShare);
  else if (table == "series")
    visit(seriesColumns(r), r.series);
  else if (table == "notes")
    visit(noteColumns(), r.notes);
  else
    return false;
  return true;
}

bool endsWithCsv(const std::string& path) {
  if (path.size() < 4) return false;
  std::string ext = path.substr(path.size() - 4);
  for (char& ch : ext) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return ext == ".csv";
}

Error fileError(const std::string& path, const std::string& what) {
  return Error{"cannot write " + path + ": " + what, {}};
}

// A name no other writer (thread or process) picks at the same time.
std::string tempPathFor(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return path + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

}  // namespace

std::string csvNumber(double value) {
  if (!std::isfinite(value)) return {};
  if (value == 0) return "0";  // also turns -0 into 0
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::general, 15);
  return std::string(buf, res.ptr);
}

std::vector<std::string> reportCsvTables(const Report& report) {
  std::vector<std::string> tables = {"summary", "usage", "mig", "idle_jobs", "stranded", "waits"};
  if (hasCurrency(report)) tables.emplace_back("chargeback");
  for (const char* t : {"fair_share", "series", "notes"}) tables.emplace_back(t);
  return tables;
}

std::vector<std::string> reportCsvColumns(const Report& report, std::string_view table) {
  std::vector<std::string> out;
  withTable(report, table, [&](const auto& cols, const auto&) { out = names(cols); });
  return out;
}

Status writeReportCsvTable(std::ostream& out, const Report& report, std::string_view table) {
  bool known = withTable(report, table,
                         [&](const auto& cols, const auto& rows) { writeTable(out, cols, rows); });
  if (known) return okStatus();
  std::string list;
  for (const auto& t : reportCsvTables(report)) list += (list.empty() ? "" : ", ") + t;
  std::string why = table == "chargeback" ? " (the report has no price table)" : "";
  return Error{
      "unknown report table '" + std::string(table) + "'" + why + "; the tables are " + list, {}};
}

std::vector<std::string> reportCsvPaths(const Report& report, const std::string& path) {
  std::vector<std::string> out;
  const bool besideFile = endsWithCsv(path);
  const fs::path p(path);
  for (const auto& table : reportCsvTables(report)) {
    if (besideFile) {
      out.push_back((p.parent_path() / (p.stem().string() + "-" + table + ".csv")).string());
    } else {
      out.push_back((p / (table + ".csv")).string());
    }
  }
  return out;
}

Status writeReportCsv(const Report& report, const std::string& path) {
  if (path.empty()) return Error{"no output path given for the CSV files", {}};
  if (!endsWithCsv(path)) {
    std::error_code ec;
    fs::create_directories(path, ec);
    if (ec || !fs::is_directory(path)) {
      return fileError(path, ec ? ec.message() : "exists and is not a directory");
    }
  }
  const auto tables = reportCsvTables(report);
  const auto paths = reportCsvPaths(report, path);
  for (size_t i = 0; i < tables.size(); ++i) {
    TESSERA_CHECK(writeFileAtomically(paths[i], [&](std::ostream& out) {
      (void)writeReportCsvTable(out, report, tables[i]);  // a known table: cannot fail
    }));
  }
  return okStatus();
}

Status writeFileAtomically(const std::string& path,
                           const std::function<void(std::ostream&)>& body) {
  if (path.empty()) return Error{"no output path given", {}};
  if (fs::is_directory(path)) return fileError(path, "it is a directory");
  const std::string temp = tempPathFor(path);
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) return fileError(path, std::strerror(errno));
    body(out);
    out.flush();
    if (!out) {
      int err = errno;
      out.close();
      std::error_code ignored;
      fs::remove(temp, ignored);
      return fileError(path, err != 0 ? std::strerror(err) : "write failed");
    }
  }
  std::error_code ec;
  fs::rename(temp, path, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    return fileError(path, ec.message());
  }
  return okStatus();
}

}  // namespace tessera
