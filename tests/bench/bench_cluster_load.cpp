// Cluster spec loading. Target (issue: foundation): a 10,000-GPU spec loads in < 1 s; the heap
// the loaded cluster occupies is reported as a counter (cluster_kib).
// Run: build/release/tests/bench/bench_cluster_load
#include <benchmark/benchmark.h>

#include <malloc.h>

#include <iomanip>
#include <sstream>
#include <string>

#include "clusterspec/cluster_spec.h"

using namespace tessera;

namespace {

// A spec of `gpus` GPUs: 8-GPU DGX H100 boards in pods of 128 nodes (4 leafs each, under two
// spines), every fourth pod in MIG mode on half its GPUs, plus per-node overrides for 1% of nodes.
std::string generatedSpec(int gpus) {
  const int nodes = gpus / 8;
  std::ostringstream s;
  s << "version: 1\nname: bench-" << gpus << "\nnode_templates:\n"
    << "  dgx:\n    gpu_model: H100-SXM5-80GB\n    gpus: 8\n    cpus: 224\n    memory_gib: 2048\n"
    << "    numa:\n      - {cpus: \"0-55,112-167\", gpus: [0, 1, 2, 3]}\n"
    << "      - {cpus: \"56-111,168-223\", gpus: [4, 5, 6, 7]}\n"
    << "fabric:\n  spines: [spine-1, spine-2]\ngroups:\n";
  for (int pod = 0, left = nodes; left > 0; ++pod) {
    const int count = std::min(128, left);
    left -= count;
    s << "  - name: pod" << pod << "\n    template: dgx\n    count: " << count
      << "\n    leafs: {count: " << std::min(4, count) << ", spine: spine-" << (pod % 2 + 1)
      << "}\n    pool: p" << pod % 3 << "\n";
    if (pod % 4 == 3)
      s << "    gpus:\n      \"4-7\": {mig: \"3g.40gb@4,2g.20gb@0,1g.10gb@2,1g.10gb@3\"}\n";
  }
  if (nodes >= 100) s << "overrides:\n";
  // Pod 0 has 128 nodes, named pod0-001..pod0-128.
  for (int i = 0; i < nodes / 100; ++i)
    s << "  - {nodes: pod0-" << std::setw(3) << std::setfill('0') << (i % 128 + 1)
      << std::setfill(' ') << ", state: draining}\n";
  return s.str();
}

// The same cluster written out node by node (no generators), each node with its own leaf entry,
// labels and per-GPU sharing: the verbose form an inventory export would produce.
std::string explicitSpec(int gpus) {
  const int nodes = gpus / 8;
  std::ostringstream s;
  s << "version: 1\nname: bench-explicit-" << gpus << "\nnode_templates:\n"
    << "  dgx:\n    gpu_model: H100-SXM5-80GB\n    gpus: 8\n    cpus: 224\n    memory_gib: 2048\n"
    << "    numa:\n      - {cpus: \"0-55,112-167\", gpus: [0, 1, 2, 3]}\n"
    << "      - {cpus: \"56-111,168-223\", gpus: [4, 5, 6, 7]}\n"
    << "fabric:\n  spines: [spine-1, spine-2]\n  leafs:\n";
  const int leafs = (nodes + 31) / 32;
  for (int l = 0; l < leafs; ++l)
    s << "    - {name: leaf-" << l << ", spine: spine-" << (l % 2 + 1) << "}\n";
  s << "nodes:\n";
  for (int n = 0; n < nodes; ++n) {
    s << "  - name: node-" << std::setw(5) << std::setfill('0') << n << std::setfill(' ')
      << "\n    template: dgx\n"
      << "    leaf: leaf-" << n / 32 << "\n    pool: p" << n % 3 << "\n    labels: {rack: r"
      << n / 8 << ", row: \"" << n / 64 << "\"}\n    driver: \"550.90.07\"\n";
    if (n % 4 == 3)
      s << "    gpus:\n      \"4-5\": {mig: \"3g.40gb@4,2g.20gb@0,1g.10gb@2,1g.10gb@3\"}\n"
        << "      \"6\": {timeslice: 4}\n      \"7\": {mig: "
           "\"1g.20gb@0,1g.20gb@2,1g.20gb@4,1g.20gb@6\"}\n";
  }
  return s.str();
}

// Heap bytes in use: the delta across a load is what the loaded cluster itself occupies.
size_t heapInUse() {
  return mallinfo2().uordblks;
}

void BM_LoadClusterSpec(benchmark::State& state) {
  const int gpus = static_cast<int>(state.range(0));
  const bool verbose = state.range(1) != 0;
  const std::string text = verbose ? explicitSpec(gpus) : generatedSpec(gpus);
  const size_t before = heapInUse();
  auto kept = loadClusterSpec(text, "bench.yaml");
  if (!kept) {
    state.SkipWithError(kept.error().str().c_str());
    return;
  }
  const size_t clusterBytes = heapInUse() - before;
  for (auto _ : state) {
    auto cluster = loadClusterSpec(text, "bench.yaml");
    benchmark::DoNotOptimize(cluster);
  }
  state.counters["gpus"] = gpus;
  state.counters["nodes"] = static_cast<double>((*kept)->nodes().size());
  state.counters["spec_kib"] = static_cast<double>(text.size()) / 1024.0;
  state.counters["cluster_kib"] = static_cast<double>(clusterBytes) / 1024.0;
  // The spec is already in memory: reading the file is not part of the figure.
  state.SetLabel("parse + build from a string");
}
BENCHMARK(BM_LoadClusterSpec)
    ->ArgNames({"gpus", "explicit"})
    ->Args({1000, 0})
    ->Args({10000, 0})
    ->Args({10000, 1})
    ->Unit(benchmark::kMillisecond);

void BM_LoadDemoCluster(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(loadClusterSpec(demoClusterYaml(), "demo.yaml"));
}
BENCHMARK(BM_LoadDemoCluster)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
