// Report benchmark (reports issue): a 30-day report over 6,000 GPUs and 100,000 jobs; targets
// < 5 s to CSV and < 10 s to PDF, with memory reported.
//
// The data is real: the simulator replays 100,000 synthetic jobs on 750 DGX H100 nodes at the
// rate that spreads them over 30 days, with the usage recorder following it (telemetry every
// 5 min), and writes the record database `tessera report` reads (report/sim_record.h). Making
// it and reporting from it are separate runs, so the peak memory printed is the report's own:
//   bench_report --make FILE [--jobs N] [--nodes N]     simulate and write the record
//   bench_report --db FILE [--group-by G]               time report -> CSV and report -> PDF
//   bench_report --smoke                                 both, small, in one process (ctest)
// --db prints the figures as RESULT lines too (bench_stats.h), named by the grouping:
// <group>.csv and <group>.pdf (seconds), <group>.peak_rss_csv / .peak_rss_pdf (MiB). The peak
// RSS after the PDF is the process's peak so far, so it is at least the CSV's.
#include <sys/resource.h>

#include <QApplication>
#include <QTemporaryDir>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>

#include "bench_stats.h"
#include "clusterspec/cluster_spec.h"
#include "report/report_compute.h"
#include "report/report_csv.h"
#include "report/sim_record.h"
#include "report_document.h"
#include "sim/synthetic.h"

using namespace tessera;

namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

long peakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

std::shared_ptr<const Cluster> cluster(int nodes) {
  std::ostringstream s;
  s << "version: 1\nname: bench-report\nnode_templates:\n"
    << "  dgx: {gpu_model: H100-SXM5-80GB, gpus: 8, cpus: 224, memory_gib: 2048}\n"
    << "fabric:\n  spines: [spine-1]\ngroups:\n";
  for (int pod = 0; pod < std::max(1, nodes / 50); ++pod)
    s << "  - {name: pod" << pod << ", template: dgx, count: " << std::min(50, nodes)
      << ", leafs: {count: 1, spine: spine-1}}\n";
  auto c = loadClusterSpec(s.str(), "bench-report.yaml");
  if (!c) throw std::runtime_error(c.error().str());
  return *c;
}

int make(const std::string& path, size_t jobs, int nodes) {
  const auto c = cluster(nodes);
  SyntheticConfig sc;
  sc.jobs = jobs;
  sc.arrivalsPerHour = double(jobs) / (30 * 24);  // the jobs arrive over 30 days
  sc.runtimeScale = 0.25;
  sc.seed = 42;
  Trace trace = *synthesize(*c, sc);
  auto engine = engineForTrace(c, trace, Policy{});
  if (!engine) return std::fprintf(stderr, "%s\n", engine.error().str().c_str()), 1;
  SimConfig config;
  config.seed = 42;
  Simulator sim(std::move(*engine), std::move(trace), config);
  UsageRecorder usage([&sim](const JobRecord& r, Seconds t) -> std::optional<JobTelemetry> {
    return sim.jobTelemetry(r.job.id, t);
  });
  sim.recordUsage(&usage);
  const auto t0 = Clock::now();
  if (const Status s = sim.run(); !s)
    return std::fprintf(stderr, "%s\n", s.error().str().c_str()), 1;
  usage.follow(sim.engine());
  const double simulated = since(t0);
  const auto t1 = Clock::now();
  if (const Status s = writeSimulationRecord(sim, usage, path); !s)
    return std::fprintf(stderr, "%s\n", s.error().str().c_str()), 1;
  std::printf(
      "record: %zu jobs on %zu GPUs over %.1f days: simulated in %.2f s, written in %.2f s "
      "(%.0f MiB)\n",
      jobs, c->gpus().size(), double(sim.now()) / 86400, simulated, since(t1),
      double(std::filesystem::file_size(path)) / (1 << 20));
  return 0;
}

int measure(const std::string& path, const std::string& groupBy, const std::string& outDir) {
  ReportRequest request;
  request.groupBy = parseReportGroup(groupBy).value_or(ReportGroup::Team);
  request.prices = *parsePriceTable("gpu_hour: {H100-SXM5-80GB: 3.5}", "bench");
  // Report -> CSV.
  auto t0 = Clock::now();
  auto source = openReportDatabase(path);
  if (!source) return std::fprintf(stderr, "%s\n", source.error().str().c_str()), 1;
  auto report = computeReport(**source, request);
  if (!report) return std::fprintf(stderr, "%s\n", report.error().str().c_str()), 1;
  const double computed = since(t0);
  if (const Status s = writeReportCsv(*report, outDir + "/csv"); !s)
    return std::fprintf(stderr, "%s\n", s.error().str().c_str()), 1;
  const double toCsv = since(t0);
  std::printf(
      "report -> CSV: %.2f s (computing %.2f s; %.0f GPU-hours allocated, %zu %s rows, "
      "%zu idle jobs); peak RSS %ld MiB\n",
      toCsv, computed, report->total.allocated, report->usage.size(), groupBy.c_str(),
      report->idleJobsTotal, peakRssMiB());
  bench::printResult(groupBy + ".csv", toCsv, "s", 1);
  bench::printResult(groupBy + ".computing", computed, "s", 1);
  bench::printResult(groupBy + ".peak_rss_csv", static_cast<double>(peakRssMiB()), "MiB", 1);
  // Report -> PDF: computed again, as `tessera report --format pdf` would.
  t0 = Clock::now();
  auto again = computeReport(**source, request);
  if (!again) return std::fprintf(stderr, "%s\n", again.error().str().c_str()), 1;
  if (const Status s = writeReportPdf(*again, outDir + "/report.pdf"); !s)
    return std::fprintf(stderr, "%s\n", s.error().str().c_str()), 1;
  const double toPdf = since(t0);
  std::printf("report -> PDF: %.2f s (%.0f KiB); peak RSS %ld MiB\n", toPdf,
              double(std::filesystem::file_size(outDir + "/report.pdf")) / 1024, peakRssMiB());
  bench::printResult(groupBy + ".pdf", toPdf, "s", 1);
  bench::printResult(groupBy + ".peak_rss_pdf", static_cast<double>(peakRssMiB()), "MiB", 1);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string makePath, dbPath, groupBy = "team";
  size_t jobs = 100000;
  int nodes = 750;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* next = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--make")
      makePath = next, ++i;
    else if (a == "--db")
      dbPath = next, ++i;
    else if (a == "--group-by")
      groupBy = next, ++i;
    else if (a == "--jobs")
      jobs = std::stoul(next), ++i;
    else if (a == "--nodes")
      nodes = std::stoi(next), ++i;
    else if (a == "--smoke")
      smoke = true;
  }
  if (!std::getenv("DISPLAY")) setenv("QT_QPA_PLATFORM", "offscreen", 0);
  QApplication app(argc, argv);
  QTemporaryDir tmp;
  if (smoke) {
    const std::string db = tmp.filePath("smoke.db").toStdString();
    if (int rc = make(db, 2000, 50)) return rc;
    return measure(db, groupBy, tmp.path().toStdString());
  }
  if (!makePath.empty()) return make(makePath, jobs, nodes);
  if (!dbPath.empty()) return measure(dbPath, groupBy, tmp.path().toStdString());
  std::fprintf(stderr,
               "usage: bench_report --make FILE [--jobs N] [--nodes N] | --db FILE "
               "[--group-by G] | --smoke\n");
  return 2;
}
