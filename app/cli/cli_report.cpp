// tessera report: a utilization and chargeback report from a database file (tesserad's, or a
// simulation's --record), a running tesserad, or a report saved as JSON; written as CSV, JSON,
// HTML or PDF (docs/reports.md).
#include <QApplication>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "cli/cli_context.h"
#include "cli/cli_ctl.h"
#include "cli/cli_report_remote.h"
#include "cli/progress.h"
#include "report/report_compute.h"
#include "report/report_csv.h"
#include "report/report_json.h"
#include "report/report_time.h"
#include "report_document.h"
#include "workload/workload_spec.h"

namespace tessera::cli {
namespace {

struct ReportArgs {
  std::string db, input;
  ctl::GlobalFlags server;
  std::string from, to, tz = "UTC", groupBy = "team", prices, format, output = "-", table;
  std::vector<std::string> teams;
  std::string idleThreshold = "5%", idleMin = "30m";
  size_t topIdle = 100;
  bool noProgress = false;
};

// "5%", "0.05" -> 0.05.
std::optional<double> parseFraction(std::string text) {
  const bool percent = !text.empty() && text.back() == '%';
  if (percent) text.pop_back();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') return std::nullopt;
  return percent ? v / 100 : v;
}

// The format asked for, or the one the output's name implies (a directory or "-" means CSV
// files or JSON on stdout).
Expected<std::string> formatOf(const ReportArgs& a) {
  if (!a.format.empty()) return a.format;
  const std::string ext = std::filesystem::path(a.output).extension().string();
  if (ext == ".json") return std::string("json");
  if (ext == ".html" || ext == ".htm") return std::string("html");
  if (ext == ".pdf") return std::string("pdf");
  if (a.output == "-") return std::string(a.table.empty() ? "json" : "csv");
  return std::string("csv");
}

Expected<ReportRequest> requestOf(const ReportArgs& a, Seconds newest) {
  ReportRequest r;
  TESSERA_CHECK(checkTimeZone(a.tz));
  r.timeZone = a.tz;
  if (!a.from.empty()) {
    auto t = parseReportTime(a.from, a.tz, newest);
    if (!t) return Error{"--from: " + t.error().message, {}};
    r.from = *t;
  }
  if (!a.to.empty()) {
    auto t = parseReportTime(a.to, a.tz, newest);
    if (!t) return Error{"--to: " + t.error().message, {}};
    r.to = *t;
  }
  const auto group = parseReportGroup(a.groupBy);
  if (!group)
    return Error{"--group-by: unknown group '" + a.groupBy +
                     "' (team, department, queue, pool, model, node, job)",
                 {}};
  r.groupBy = *group;
  const auto threshold = parseFraction(a.idleThreshold);
  if (!threshold || *threshold < 0 || *threshold > 1)
    return Error{"--idle-threshold: give a utilization like 5% or 0.05", {}};
  r.idleThreshold = *threshold;
  const auto minIdle = parseDuration(a.idleMin);
  if (!minIdle) return Error{"--idle-min: give a duration like 30m, 2h, 1h30m or 600", {}};
  r.idleMinDuration = *minIdle;
  if (!a.prices.empty()) {
    auto prices = loadPriceTableFile(a.prices);
    if (!prices) return prices.error();
    r.prices = std::move(*prices);
  }
  r.teams = a.teams;
  r.topIdleJobs = a.topIdle;
  return r;
}

Expected<Report> fromDatabase(Context& ctx, const ReportArgs& a) {
  const GpuCatalog* catalog = ctx.catalog();
  if (!catalog) return Error{"the GPU catalog could not be loaded", {}};
  TESSERA_TRY(source, openReportDatabase(a.db, catalog));
  TESSERA_TRY(request, requestOf(a, source->setup().last));
  Progress bar(ctx, !a.noProgress, "of the usage ledger");
  auto report = computeReport(*source, request, [&bar](double f) {
    bar(f);
    return true;
  });
  bar.finish();
  return report;
}

Expected<Report> fromServer(const ReportArgs& a) {
  // Relative times (-7d) are counted back from this machine's clock: a live tesserad's engine
  // clock is Unix time.
  TESSERA_TRY(request, requestOf(a, static_cast<Seconds>(std::time(nullptr))));
  return fetchRemoteReport(a.server, request);
}

Expected<Report> obtain(Context& ctx, const ReportArgs& a) {
  if (!a.input.empty()) return loadReportJsonFile(a.input);
  if (!a.db.empty()) return fromDatabase(ctx, a);
  return fromServer(a);
}

// HTML and PDF need a QApplication (Qt Charts); the verbs run without one. Without a display
// the offscreen platform renders just as well.
std::unique_ptr<QApplication> guiApplication() {
  if (QCoreApplication::instance()) return nullptr;
  if (!std::getenv("DISPLAY") && !std::getenv("WAYLAND_DISPLAY") && !std::getenv("QT_QPA_PLATFORM"))
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
  static int argc = 1;
  static char name[] = "tessera";
  static char* argv[] = {name, nullptr};
  return std::make_unique<QApplication>(argc, argv);
}

Status write(Context& ctx, const Report& r, const std::string& format, const ReportArgs& a) {
  const bool toStdout = a.output == "-";
  if (format == "json") {
    if (toStdout) return writeReportJson(ctx.out, r), okStatus();
    return writeReportJsonFile(r, a.output);
  }
  if (format == "csv") {
    if (toStdout) {
      if (a.table.empty())
        return Error{"CSV on stdout is one table: give --table (" +
                         [&] {
                           std::string t;
                           for (const auto& n : reportCsvTables(r))
                             t += (t.empty() ? "" : ", ") + n;
                           return t;
                         }() +
                         ") or -o DIR",
                     {}};
      return writeReportCsvTable(ctx.out, r, a.table);
    }
    return writeReportCsv(r, a.output);
  }
  if (toStdout) return Error{format + " needs an output file: give -o FILE." + format, {}};
  const auto app = guiApplication();
  return format == "pdf" ? writeReportPdf(r, a.output) : writeReportHtml(r, a.output);
}

int runReport(Context& ctx, const ReportArgs& a) {
  const int sources =
      int(!a.db.empty()) + int(!a.input.empty()) + int(!a.server.connection.server.empty());
  if (sources != 1)
    return ctx.fail("give exactly one source: --db FILE, --server HOST:PORT or --input REPORT.json",
                    kExitUsage);
  // A missing file is a usage error (exit 2), like every verb's; a file that was read and is
  // wrong is invalid input (exit 1).
  if (!a.prices.empty() && !std::filesystem::is_regular_file(a.prices))
    return ctx.fail("--prices: no such file: " + a.prices, kExitUsage);
  const auto format = formatOf(a);
  if (!format) return ctx.fail(format.error().str(), kExitUsage);
  auto report = obtain(ctx, a);
  if (!report) {
    const std::string& file = report.error().where.file;
    const bool missing = !file.empty() && !std::filesystem::exists(file);
    return ctx.fail(report.error().str(), missing ? kExitUsage : kExitInvalid);
  }
  if (const Status w = write(ctx, *report, *format, a); !w)
    return ctx.fail(w.error().str(), kExitUsage);
  if (a.output != "-")
    ctx.err << "wrote " << *format << " report to " << a.output << " (" << report->usage.size()
            << " " << reportGroupName(report->header.groupBy) << " rows)\n";
  return kExitOk;
}

}  // namespace

void addReportVerb(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<ReportArgs>();
  auto* r = app.add_subcommand(
      "report", "Utilization and chargeback report as CSV, JSON, HTML or PDF (docs/reports.md)");
  r->add_option("--db", a->db, "A Tessera database: tesserad's, or 'simulate --record' output")
      ->type_name("FILE");
  r->add_option("--server", a->server.connection.server,
                "A running tesserad, HOST:PORT or unix:PATH");
  r->add_option("--token", a->server.connection.token, "Bearer token for --server");
  r->add_option("--token-file", a->server.connection.tokenFile, "Read the bearer token from FILE");
  r->add_option("--ca", a->server.connection.ca, "CA certificate (PEM) for --server; enables TLS");
  r->add_option("--server-name", a->server.connection.serverName, "TLS name to expect");
  r->add_option("--input", a->input, "A report saved as JSON: render it in another format")
      ->type_name("FILE");
  r->add_option("--from", a->from,
                "Start: 2026-11-01, 2026-11-01T08:00, ...+01:00, @SECONDS or -7d (default: "
                "the first data)");
  r->add_option("--to", a->to, "End, exclusive, same forms (default: the newest data)");
  r->add_option("--tz", a->tz, "Time zone for dates without an offset and for the header")
      ->capture_default_str();
  r->add_option("--group-by", a->groupBy, "team, department, queue, pool, model, node or job")
      ->capture_default_str();
  r->add_option("--team", a->teams, "Only this team (repeatable)");
  r->add_option("--prices", a->prices, "Price table (YAML, docs/reports.md#price-table)")
      ->type_name("FILE");
  r->add_option("--idle-threshold", a->idleThreshold, "GPU utilization below this is idle")
      ->capture_default_str();
  r->add_option("--idle-min", a->idleMin, "...when it lasts at least this long")
      ->capture_default_str();
  r->add_option("--top-idle", a->topIdle, "Rows of the idle-jobs table (0 = all)")
      ->capture_default_str();
  r->add_option("--format", a->format, "csv, json, html or pdf (default: from -o's extension)")
      ->check(CLI::IsMember({"csv", "json", "html", "pdf"}));
  r->add_option("-o,--output", a->output,
                "Output file, or a directory for CSV files, or - for stdout (JSON, or one CSV "
                "--table)")
      ->capture_default_str();
  r->add_option("--table", a->table, "With CSV on stdout: the table to print");
  r->add_flag("--no-progress", a->noProgress, "No progress bar");
  r->callback([&ctx, a] { ctx.exitCode = runReport(ctx, *a); });
}

}  // namespace tessera::cli
