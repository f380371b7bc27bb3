// tesserad's /metrics on a 10,000-GPU cluster (issue 27): 1,250 DGX H100 nodes with thousands of
// jobs (about 400 running, the rest pending) across the demo teams, every gRPC method's latency
// histogram filled. Times, through the real exporter on loopback (prometheus-cpp / civetweb):
//   - the engine thread's share of each cycle (BackendMetrics::recordCycle),
//   - a whole scrape: connect, GET /metrics, read the body (target p99 < 50 ms),
// and the exporter's memory: resident size before it starts and after the scrapes.
//
// Run: build/release/tests/bench/bench_metrics [--nodes N] [--jobs J] [--scrapes S] [--smoke]
#include <unistd.h>
#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>
#include <vector>

#include "../daemon/scrape.h"
#include "bench_backend.h"
#include "bench_stats.h"
#include "clusterspec/cluster_spec.h"
#include "daemon/backend_metrics.h"
#include "daemon/metrics_exporter.h"
#include "service/backend.h"
#include "workload/workload_spec.h"

using namespace tessera;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  int nodes = 1250;  // x 8 GPUs
  int jobs = 6000;
  int scrapes = 200;
  bool smoke = false;
};

[[noreturn]] void fail(const std::string& why) {
  bench::exitWith("bench_metrics", why);
}

template <typename T, typename Call>
T await(Call&& call) {
  return bench::awaitOrExit<T>("bench_metrics", std::forward<Call>(call));
}

// `count` jobs shaped like the demo's first (H100 gangs), 1 to 4 tasks, spread over the demo's
// teams: many series of queue depth, hundreds of jobs running and thousands pending.
std::vector<Job> jobsFor(const Workload& tenants, int count) {
  std::vector<Job> jobs;
  for (int i = 0; i < count; ++i) {
    Job j = tenants.jobs.front();
    j.id = kNoJob;
    j.team = tenants.teams[static_cast<size_t>(i) % tenants.teams.size()].name;
    j.tasks = 1 + i % 4;
    jobs.push_back(std::move(j));
  }
  return jobs;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  CLI::App app{"tesserad's /metrics on a large cluster"};
  app.add_option("--nodes", o.nodes, "DGX nodes (8 GPUs each)");
  app.add_option("--jobs", o.jobs, "jobs submitted before the cycle");
  app.add_option("--scrapes", o.scrapes, "scrapes timed");
  app.add_flag("--smoke", o.smoke, "a small, quick run (ctest)");
  CLI11_PARSE(app, argc, argv);
  if (o.smoke) o = Options{50, 100, 5, true};

  const auto dir =
      std::filesystem::temp_directory_path() / ("bench-metrics-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto tenants = demoWorkload();
  if (!tenants) fail(tenants.error().str());

  auto metrics = std::make_shared<BackendMetrics>();
  std::vector<double> recordMs;
  BackendConfig c;
  c.database = (dir / "m.db").string();
  c.mode = BackendMode::Live;
  c.cluster = bench::dgxCluster(o.nodes, "bench-metrics");
  c.tenants = *tenants;
  c.tenants.jobs.clear();
  c.runCycles = false;
  c.onCycle = [&](const CycleReport& r) {
    const auto start = Clock::now();
    metrics->recordCycle(r);
    recordMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
  };
  auto backend = Backend::open(c);
  if (!backend) fail(backend.error().str());
  await<std::vector<JobId>>([&](auto r) {
    (*backend)->submit(jobsFor(*tenants, o.jobs), Caller{"bench"}, std::nullopt, r);
  });
  for (int i = 0; i < 3; ++i) await<CycleStats>([&](auto r) { (*backend)->cycleNow(r); });
  for (const char* m :
       {"Submit", "SubmitBatch", "GetJob", "ListJobs", "CancelJob", "Act", "Explain", "GetSnapshot",
        "QueryMetrics", "GetReport", "PushTelemetry", "ReportInventory", "ListNodeInventory",
        "AdmitNode", "Backup", "WhoAmI", "GetHealth"})
    for (int i = 0; i < 100; ++i) metrics->recordCall(m, 0.0001 * i);

  const double rssBefore = bench::rssMiB();
  auto exporter = MetricsExporter::start("127.0.0.1:0", metrics->collectables());
  if (!exporter) fail(exporter.error().str());
  const double rssStarted = bench::rssMiB();
  std::vector<double> scrapeMs;
  size_t bytes = 0;
  double running = 0;
  for (int i = 0; i < o.scrapes; ++i) {
    const auto start = Clock::now();
    const auto reply = test::httpGet((*exporter)->port(), "/metrics");
    scrapeMs.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    if (reply.body.find("tessera_gpus_total ") == std::string::npos) fail("scrape: no body");
    bytes = reply.body.size();
    running = test::sampleValue(reply.body, "tessera_jobs_running");
  }
  const double rssScraped = bench::rssMiB();
  (*exporter)->stop();
  (*backend)->stop();
  std::filesystem::remove_all(dir);

  std::printf("bench_metrics: %d GPUs, %d jobs (%.0f running), %d scrapes of %zu bytes (CPU: %s)\n",
              o.nodes * 8, o.jobs, running, o.scrapes, bytes, bench::cpuModel().c_str());
  bench::printSummary("metrics.record_cycle", bench::summarize(recordMs), "ms");
  bench::printSummary("metrics.scrape", bench::summarize(scrapeMs), "ms");
  bench::printResult("metrics.scrape.bytes", static_cast<double>(bytes), "B", 1);
  bench::printResult("metrics.exporter.rss_start", rssStarted - rssBefore, "MiB", 1);
  bench::printResult("metrics.exporter.rss_after_scrapes", rssScraped - rssBefore, "MiB", 1);
  return 0;
}
