// Engine benchmarks (scheduler engine issue), shaped after kube-scheduler's scheduler_perf and
// the KAI snapshot figures:
//   * one full cycle with 150,000 pending jobs on 4,000 nodes x 8 GPUs: p50/p99 of steady-state
//     cycles (target p99 < 100 ms), plus the first cycle that fills the empty cluster;
//   * explanation of one pending job on a 40,000-GPU cluster (target < 5 ms);
//   * memory of an engine with 40,000 GPUs and 150,000 jobs (target < 1 GiB).
// Run: build/release/tests/bench/bench_engine
#include <benchmark/benchmark.h>

#include <unistd.h>
#include <algorithm>
#include <chrono>
#include <fstream>
#include <random>
#include <sstream>

#include "clusterspec/cluster_spec.h"
#include "scheduler/engine.h"
#include "scheduler/explain.h"

using namespace tessera;

namespace {

// `nodes` DGX H100 nodes in pods of 100 (2 leafs each), 25 pods per spine.
std::shared_ptr<const Cluster> cluster(int nodes) {
  std::ostringstream s;
  s << "version: 1\nname: bench\nnode_templates:\n"
    << "  dgx: {gpu_model: H100-SXM5-80GB, gpus: 8, cpus: 224, memory_gib: 2048}\n"
    << "fabric:\n  spines: [spine-1, spine-2]\ngroups:\n";
  for (int pod = 0; pod < nodes / 100; ++pod)
    s << "  - {name: pod" << pod << ", template: dgx, count: 100, leafs: {count: 2, spine: spine-"
      << (pod / 25 % 2 + 1) << "}}\n";
  auto c = loadClusterSpec(s.str(), "bench.yaml");
  if (!c) throw std::runtime_error(c.error().str());
  return *c;
}

// 20 teams under 4 departments, no quotas (fair share orders them), and `jobs` pending jobs:
// 70 % single GPU, 20 % one 8-GPU node, 10 % gangs of 2-4 x 8 GPUs within a leaf; runtimes
// 10 min - 8 h so backfill has ends to plan with.
Workload workload(int jobs, uint32_t seed) {
  Workload w;
  w.priorityClasses = defaultPriorityClasses();
  for (int d = 0; d < 4; ++d) w.teams.push_back({"dept" + std::to_string(d), "", 1.0, {}});
  for (int t = 0; t < 20; ++t)
    w.teams.push_back({"team" + std::to_string(t), "dept" + std::to_string(t % 4), 1.0, {}});
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> pct(0, 99), team(0, 19), runtime(600, 8 * 3600);
  const char* classes[] = {"production-training", "experiment", "spot"};
  for (int i = 1; i <= jobs; ++i) {
    Job j;
    j.id = static_cast<JobId>(i);
    j.team = "team" + std::to_string(team(rng));
    j.priorityClass = classes[pct(rng) % 3];
    j.priority = j.priorityClass == "production-training" ? 800
                 : j.priorityClass == "experiment"        ? 500
                                                          : 100;
    j.preemptible = j.priority < 800;
    j.perTask.kind = GpuRequest::Kind::Whole;
    const int p = pct(rng);
    j.perTask.gpus = p < 70 ? 1 : 8;
    j.tasks = p < 90 ? 1 : 2 + p % 3;
    if (j.tasks > 1) j.topology = {TopologyLevel::Leaf, true};
    j.cpusPerTask = 8 * j.perTask.gpus;
    j.memoryMiBPerTask = int64_t{64} * 1024 * j.perTask.gpus;
    j.estimatedRuntime = runtime(rng);
    w.jobs.push_back(std::move(j));
  }
  return w;
}

Engine makeEngine(int nodes, int jobs, Policy policy = {}) {
  auto e = Engine::create(cluster(nodes), workload(jobs, 42), std::move(policy));
  if (!e) throw std::runtime_error(e.error().str());
  return std::move(*e);
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * double(v.size() - 1))];
}

// Steady state: each round completes 1 % of the running jobs, moves the clock 5 minutes and runs
// a cycle over the ~150,000 pending jobs. Second argument: the backfill planning budget in ms
// (the default policy's 50, and 20).
void BM_Cycle150kPending(benchmark::State& state) {
  const int rounds = static_cast<int>(state.range(0));
  Policy policy;
  policy.backfill.timeBudgetMs = static_cast<double>(state.range(1));
  Engine e = makeEngine(4000, 150'000, policy);
  const auto first = e.runCycle();
  std::vector<double> ms;
  std::mt19937 rng(7);
  CycleStats last;
  for (auto _ : state) {
    for (int r = 0; r < rounds; ++r) {
      state.PauseTiming();
      auto running = e.running();
      std::shuffle(running.begin(), running.end(), rng);
      for (size_t i = 0; i < running.size() / 100; ++i) (void)e.complete(running[i]->job.id);
      (void)e.advanceTo(e.now() + 300);
      state.ResumeTiming();
      last = e.runCycle();
      ms.push_back(last.cycleMs);
    }
  }
  state.counters["first_cycle_ms"] = first.cycleMs;
  state.counters["first_started"] = first.started;
  state.counters["p50_ms"] = percentile(ms, 0.5);
  state.counters["p99_ms"] = percentile(ms, 0.99);
  state.counters["max_ms"] = percentile(ms, 1.0);
  state.counters["pending"] = last.pending;
  state.counters["started_last"] = last.started;
  state.counters["backfill_ms_last"] = last.backfillMs;
  state.counters["order_ms_last"] = last.orderMs;
  state.counters["preempt_ms_last"] = last.preemptMs;
  state.counters["preempted_last"] = last.preempted;
  state.counters["reservations_last"] = last.reservations;
}
BENCHMARK(BM_Cycle150kPending)
    ->Args({20, 50})
    ->Args({20, 20})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

// A 40,000-GPU cluster after one cycle; explains a pending 16-GPU gang (the slowest kind: node
// filter, placement what-if, fragmentation, topology relaxation and the backfill plan).
void BM_ExplainPending(benchmark::State& state) {
  Engine e = makeEngine(5000, 60'000);
  e.runCycle();
  const JobRecord* target = nullptr;
  for (const JobRecord* j : e.queue())
    if (j->job.tasks > 1) {
      target = j;
      break;
    }
  if (!target) {
    state.SkipWithError("no pending gang");
    return;
  }
  size_t lines = 0;
  for (auto _ : state) {
    auto ex = explain(e, target->job.id);
    lines += ex->counterfactuals.size();
    benchmark::DoNotOptimize(ex);
  }
  state.counters["counterfactuals"] = double(lines) / double(state.iterations());
}
BENCHMARK(BM_ExplainPending)->Unit(benchmark::kMillisecond);

long rssKiB() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * sysconf(_SC_PAGESIZE) / 1024;
}

// Resident memory added by an engine with 40,000 GPUs and 150,000 jobs after a first cycle.
void BM_Memory40kGpus150kJobs(benchmark::State& state) {
  for (auto _ : state) {
    const long before = rssKiB();
    Engine e = makeEngine(5000, 150'000);
    e.runCycle();
    state.counters["rss_added_MiB"] = double(rssKiB() - before) / 1024.0;
    state.counters["running"] = double(e.running().size());
  }
}
BENCHMARK(BM_Memory40kGpus150kJobs)->Unit(benchmark::kMillisecond)->Iterations(1);

// Smoke size for ctest: the same code paths on a small cluster.
void BM_CycleSmall(benchmark::State& state) {
  for (auto _ : state) {
    Engine e = makeEngine(100, 3000);
    auto st = e.runCycle();
    (void)e.advanceTo(600);
    st = e.runCycle();
    benchmark::DoNotOptimize(st);
  }
}
BENCHMARK(BM_CycleSmall)->Unit(benchmark::kMillisecond)->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
