// Simulator benchmark (simulator issue): replay of a 100,000-job trace on a 6,000-GPU cluster
// (750 x 8-GPU nodes under 15 leaf switches) with backfill and preemption on; target < 30 s.
// Reports wall time, the simulated-time / wall-time ratio (Slurm's simulator reaches ~100x),
// engine cycles and their p50/p99, and peak memory, and the headline figures as RESULT lines
// (bench_stats.h) for installer/run-benchmarks.sh.
//
// The wall time is Simulator::run alone: synthesizing the trace and building the engine come
// before it and are not included. Percentiles (queue wait, engine cycle) are nearest rank over
// every started job and every cycle, counts printed beside them.
//
// The trace is the synthetic generator's (sim/synthetic.h): training gangs (single-node and
// 2-8 node), short batch jobs, heavy-tailed runtimes, padded estimates, Poisson arrivals.
// Run: build/release/tests/bench/bench_simulator [--jobs N] [--rate PER_HOUR] [--runtime-scale X]
//      [--nodes N] [--bf-interval SECONDS]; a bad or unknown option is refused (--help).
#include <sys/resource.h>

#include <CLI/CLI.hpp>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>

#include "bench_stats.h"
#include "clusterspec/cluster_spec.h"
#include "sim/simulator.h"
#include "sim/synthetic.h"

using namespace tessera;

namespace {

std::shared_ptr<const Cluster> cluster(int nodes) {
  std::ostringstream s;
  s << "version: 1\nname: bench-sim\nnode_templates:\n"
    << "  dgx: {gpu_model: H100-SXM5-80GB, gpus: 8, cpus: 224, memory_gib: 2048}\n"
    << "fabric:\n  spines: [spine-1]\ngroups:\n";
  for (int pod = 0; pod < nodes / 50; ++pod)
    s << "  - {name: pod" << pod
      << ", template: dgx, count: 50, leafs: {count: 1, spine: spine-1}}\n";
  auto c = loadClusterSpec(s.str(), "bench-sim.yaml");
  if (!c) throw std::runtime_error(c.error().str());
  return *c;
}

long peakRssMiB() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;
}

}  // namespace

int main(int argc, char** argv) {
  SyntheticConfig sc;
  sc.jobs = 100000;
  sc.arrivalsPerHour = 250;
  sc.runtimeScale = 0.25;
  sc.seed = 42;
  int nodes = 750;
  Seconds bfInterval = 0;  // the policy's backfill interval (Slurm's bf_interval); 0 = every cycle
  CLI::App app{"Replays a synthetic trace through the simulator with backfill and preemption"};
  app.add_option("--jobs", sc.jobs)->check(CLI::Range(size_t{1}, size_t{10'000'000}));
  app.add_option("--rate", sc.arrivalsPerHour, "arrivals per hour")->check(CLI::PositiveNumber);
  app.add_option("--runtime-scale", sc.runtimeScale)->check(CLI::PositiveNumber);
  app.add_option("--nodes", nodes, "nodes of 8 GPUs, in pods of 50")
      ->check(CLI::Range(50, 100'000))
      ->check([](const std::string& v) {
        return std::stoi(v) % 50 == 0 ? std::string() : std::string("not a multiple of 50");
      });
  app.add_option("--bf-interval", bfInterval, "seconds between backfill passes; 0 = every cycle")
      ->check(CLI::NonNegativeNumber);
  CLI11_PARSE(app, argc, argv);
  const auto c = cluster(nodes);
  Trace trace = *synthesize(*c, sc);
  Policy policy;  // backfill + checkpoint-aware preemption
  policy.backfill.interval = bfInterval;
  auto engine = engineForTrace(c, trace, policy);
  if (!engine) {
    std::fprintf(stderr, "%s\n", engine.error().str().c_str());
    return 1;
  }
  SimConfig config;
  config.seed = 42;
  Simulator sim(std::move(*engine), std::move(trace), config);
  const auto t0 = std::chrono::steady_clock::now();
  if (const Status s = sim.run(); !s) {
    std::fprintf(stderr, "%s\n", s.error().str().c_str());
    return 1;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  SimSummary s = sim.summary();
  s.wallSeconds = wall;
  std::printf(
      "jobs %zu on %zu GPUs: wall %.2f s, simulated %.1f h, sim/wall %.0fx, peak RSS %ld MiB\n",
      sc.jobs, c->gpus().size(), wall, double(s.end - s.start) / 3600, s.speedup(), peakRssMiB());
  double cycleMs = 0;
  for (double ms : sim.metrics().cycleMs()) cycleMs += ms;
  const EngineStats& es = sim.engine().stats();
  const auto& ph = sim.metrics().phases();
  std::printf(
      "engine cycles %.2f s of the wall time (order %.2f s, preemption %.2f s, backfill %.2f s); "
      "started %llu, backfilled %llu, preempted %llu\n",
      cycleMs / 1000, ph.order / 1000, ph.preempt / 1000, ph.backfill / 1000,
      static_cast<unsigned long long>(es.started), static_cast<unsigned long long>(es.backfilled),
      static_cast<unsigned long long>(es.preempted));
  std::printf("%s", summaryText(s).c_str());
  std::printf("(percentiles: queue wait over %zu started jobs, engine cycles over %zu cycles)\n",
              s.wait.count, s.cycleMs.count);
  bench::printResult("wall", wall, "s", 1);
  bench::printResult("sim_per_wall", s.speedup(), "x", 1);
  bench::printResult("engine_cycles", cycleMs / 1000, "s", 1);
  bench::printResult("peak_rss", static_cast<double>(peakRssMiB()), "MiB", 1);
  if (bench::hasPercentile(0.95, s.wait.count))
    bench::printResult("queue_wait.p95", s.wait.p95 / 60, "min", s.wait.count);
  if (bench::hasPercentile(0.99, s.cycleMs.count))
    bench::printResult("engine_cycle.p99", s.cycleMs.p99, "ms", s.cycleMs.count);
  return 0;
}
