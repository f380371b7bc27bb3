// MIG engine benchmarks. Target (issue: foundation): validating 1,000,000 random layouts at
// < 200 ns per validation. Run: build/release/tests/bench/bench_mig
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "mig/mig_capacity.h"
#include "mig/mig_plan.h"
#include "mig/mig_validate.h"
#include "topology/gpu_catalog.h"

using namespace tessera;

namespace {

const GpuModel& h100() {
  return *GpuCatalog::builtin().find("H100-SXM5-80GB");
}

// Random layouts as an operator or a fuzzer would write them: 1-7 instances, any profile, any
// start slice; about one in twelve is valid, the rest fail one of the checks at varying depth.
std::vector<MigLayout> randomLayouts(const MigGeometry& g, size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> count(1, 7);
  std::uniform_int_distribution<int> profile(0, static_cast<int>(g.profiles.size()) - 1);
  std::uniform_int_distribution<int> start(0, g.memorySlices - 1);
  std::vector<MigLayout> out(n);
  for (auto& l : out) {
    const int k = count(rng);
    for (int i = 0; i < k; ++i) {
      MigInstance inst;
      inst.profile = static_cast<int8_t>(profile(rng));
      inst.start = static_cast<int8_t>(start(rng));
      l.add(inst);
    }
  }
  return out;
}

// Valid layouts only: the full path through every check.
std::vector<MigLayout> validLayouts(const MigGeometry& g) {
  std::vector<MigLayout> out;
  forEachMigLayout(g, false, [&](const MigLayout& l) { out.push_back(l); });
  return out;
}

void BM_ValidateRandomLayouts(benchmark::State& state) {
  const MigGeometry& g = *h100().mig;
  const auto layouts = randomLayouts(g, 1'000'000, 42);
  size_t valid = 0;
  for (auto _ : state) {
    valid = 0;
    for (const auto& l : layouts) valid += validateMigLayout(g, l).ok();
    benchmark::DoNotOptimize(valid);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(layouts.size()));
  state.counters["valid_share"] = static_cast<double>(valid) / static_cast<double>(layouts.size());
  state.counters["ns_per_validation"] = benchmark::Counter(
      static_cast<double>(layouts.size()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  // A mean over mostly invalid layouts, most of which fail an early check; the full path through
  // every check is BM_ValidateValidLayouts.
  state.SetLabel("mean over random layouts, ~8 % valid");
}
BENCHMARK(BM_ValidateRandomLayouts)->Unit(benchmark::kMillisecond);

void BM_ValidateValidLayouts(benchmark::State& state) {
  const MigGeometry& g = *h100().mig;
  const auto layouts = validLayouts(g);
  for (auto _ : state)
    for (const auto& l : layouts) benchmark::DoNotOptimize(validateMigLayout(g, l));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(layouts.size()));
  state.counters["ns_per_validation"] = benchmark::Counter(
      static_cast<double>(layouts.size()),
      benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_ValidateValidLayouts)->Unit(benchmark::kMicrosecond);

void BM_EnumerateAllLayouts(benchmark::State& state) {
  const MigGeometry& g = *h100().mig;
  for (auto _ : state)
    benchmark::DoNotOptimize(forEachMigLayout(g, false, [](const MigLayout&) {}));
}
BENCHMARK(BM_EnumerateAllLayouts)->Unit(benchmark::kMicrosecond);

void BM_WhatFits(benchmark::State& state) {
  const GpuModel& m = h100();
  const MigLayout l = *parseMigLayout(m, "3g.40gb@0,1g.10gb@4");
  for (auto _ : state) benchmark::DoNotOptimize(migWhatFits(*m.mig, l));
}
BENCHMARK(BM_WhatFits);

void BM_PlanRepartition(benchmark::State& state) {
  const GpuModel& m = h100();
  const MigLayout current = *parseMigLayout(m, "3g.40gb@4*,2g.20gb@0,1g.10gb@2,1g.10gb@3");
  const MigLayout target = *parseMigLayout(m, "3g.40gb,1g.10gb,1g.10gb,1g.10gb,1g.10gb");
  for (auto _ : state) benchmark::DoNotOptimize(planMigRepartition(m, current, target));
}
BENCHMARK(BM_PlanRepartition)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
