// Placement benchmarks (scheduler engine issue). The shapes mirror
// kube-scheduler's scheduler_perf: 5,000 nodes x 8 GPUs, placing single-GPU jobs one after the
// other (target >= 20,000 placements/s), and gangs of 4 x 8 GPUs with topology preference.
//
// What is timed is placement alone: one placeGang call per job in its own committed transaction,
// in submission order. No queue ordering, fair share, quotas, preemption, backfill or events:
// the engine's rate of starting jobs through runCycle is bench_engine's first_fill_jobs_per_s.
// Run: build/release/tests/bench/bench_scheduler
#include <benchmark/benchmark.h>

#include <sstream>

#include "clusterspec/cluster_spec.h"
#include "scheduler/gang_placement.h"

using namespace tessera;

namespace {

// 5,000 DGX H100 nodes in pods of 100 under 2 leafs each, 25 pods per spine.
std::shared_ptr<const Cluster> bigCluster() {
  static const std::shared_ptr<const Cluster> cluster = [] {
    std::ostringstream s;
    s << "version: 1\nname: bench-5000\nnode_templates:\n"
      << "  dgx: {gpu_model: H100-SXM5-80GB, gpus: 8, cpus: 224, memory_gib: 2048}\n"
      << "fabric:\n  spines: [spine-1, spine-2]\ngroups:\n";
    for (int pod = 0; pod < 50; ++pod)
      s << "  - {name: pod" << pod << ", template: dgx, count: 100, leafs: {count: 2, spine: spine-"
        << (pod / 25 + 1) << "}}\n";
    auto c = loadClusterSpec(s.str(), "bench.yaml");
    if (!c) throw std::runtime_error(c.error().str());
    return *c;
  }();
  return cluster;
}

Job job(JobId id, int tasks, int gpus, TopologyLevel level) {
  Job j;
  j.id = id;
  j.tasks = tasks;
  j.perTask.kind = GpuRequest::Kind::Whole;
  j.perTask.gpus = gpus;
  j.cpusPerTask = 8;
  j.memoryMiBPerTask = 64 * 1024;
  j.topology = {level, false};
  return j;
}

// Places `count` jobs of `tasks` x `gpus` one after the other on a fresh cluster (timed), each in
// its own committed transaction; returns how many were placed.
int placeAll(benchmark::State& state, int count, int tasks, int gpus, TopologyLevel level) {
  int placed = 0;
  for (auto _ : state) {
    state.PauseTiming();
    ClusterState s(bigCluster());
    state.ResumeTiming();
    placed = 0;
    for (int i = 1; i <= count; ++i) {
      Transaction tx(s);
      if (placeGang(tx, s, job(static_cast<JobId>(i), tasks, gpus, level)).placement) {
        tx.commit();
        ++placed;
      }
    }
  }
  return placed;
}

void BM_PlaceSingleGpuJobs(benchmark::State& state) {
  const auto jobs = static_cast<int>(state.range(0));
  state.counters["placed"] = placeAll(state, jobs, 1, 1, TopologyLevel::Cluster);
  state.counters["placements_per_s"] =
      benchmark::Counter(static_cast<double>(jobs), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel("placeGang calls only, not runCycle");
}
// 50,000 jobs on 40,000 GPUs: the last 10,000 find no room and are answered with their reason.
BENCHMARK(BM_PlaceSingleGpuJobs)
    ->Arg(10000)
    ->Arg(50000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

void BM_PlaceGangs(benchmark::State& state) {
  const auto gangs = static_cast<int>(state.range(0));
  const auto tasks = static_cast<int>(state.range(1));
  state.counters["gangs_placed"] = placeAll(state, gangs, tasks, 8, TopologyLevel::Leaf);
  state.counters["tasks_per_s"] = benchmark::Counter(static_cast<double>(gangs) * tasks,
                                                     benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel("placeGang calls only, not runCycle");
}
// 750 gangs x 4 tasks of 8 GPUs (leaf preferred) over 50 pods, and 3 gangs x 1,000 tasks that
// must degrade from leaf to spine.
BENCHMARK(BM_PlaceGangs)
    ->Args({750, 4})
    ->Args({3, 1000})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
