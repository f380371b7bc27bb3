// The sharing study at fleet size (issue 25): 50,000 jobs of the study's synthetic inference/dev
// workload on 1,000 GPUs (125 x 8 A100-SXM4-80GB under 5 leaf switches), all four modes, each
// with its search for the fewest GPUs meeting the default wait targets; target < 30 s wall on
// 2 cores. The workload's runtimes are scaled by 0.1 (inference services of ~50 min, notebooks
// of ~12 min) and arrive at 1,000 per hour: the whole-GPU mode then holds about 80 % of the
// cluster, so no mode runs overloaded (an overloaded replay measures the queue, not the study).
// Prints the wall time (runSharingStudy alone: not the cluster or the trace), the runs each mode
// took and the study's table, and RESULT lines (bench_stats.h).
// Run: build/release/tests/bench/bench_sharing_study [--jobs N] [--rate PER_HOUR]
//      [--runtime-scale X] [--nodes N] [--threads N] [--modes whole,mps,...]
#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>

#include "bench_stats.h"
#include "clusterspec/cluster_spec.h"
#include "sim/sharing_study.h"

using namespace tessera;

namespace {

std::shared_ptr<const Cluster> cluster(int nodes) {
  std::ostringstream s;
  s << "version: 1\nname: bench-sharing\nnode_templates:\n"
    << "  a100: {gpu_model: A100-SXM4-80GB, gpus: 8, cpus: 128, memory_gib: 1024}\n"
    << "fabric:\n  spines: [spine-1]\ngroups:\n";
  for (int pod = 0; pod * 25 < nodes; ++pod)
    s << "  - {name: pod" << pod << ", template: a100, count: " << std::min(25, nodes - pod * 25)
      << ", leafs: {count: 1, spine: spine-1}}\n";
  auto c = loadClusterSpec(s.str(), "bench-sharing.yaml");
  if (!c) throw std::runtime_error(c.error().str());
  return *c;
}

}  // namespace

int main(int argc, char** argv) {
  SyntheticConfig sc = sharingStudySyntheticDefaults();
  sc.jobs = 50000;
  sc.arrivalsPerHour = 1000;
  sc.runtimeScale = 0.1;
  sc.seed = 42;
  int nodes = 125;
  SharingStudyConfig config;
  config.sim.seed = 42;
  CLI::App app{"The sharing study at fleet size"};
  app.add_option("--jobs", sc.jobs)->check(CLI::Range(size_t{1}, size_t{1'000'000}));
  app.add_option("--rate", sc.arrivalsPerHour, "arrivals per hour")->check(CLI::PositiveNumber);
  app.add_option("--runtime-scale", sc.runtimeScale)->check(CLI::PositiveNumber);
  app.add_option("--nodes", nodes, "nodes of 8 GPUs")->check(CLI::Range(1, 10'000));
  app.add_option("--threads", config.threads, "modes at a time (0: one per core)")
      ->check(CLI::Range(0, 64));
  std::vector<std::string> modes;
  app.add_option("--modes", modes, "whole, time-slicing, mps, mig (default: all)")->delimiter(',');
  CLI11_PARSE(app, argc, argv);
  for (const std::string& m : modes) {
    const auto mode = parseSharingStudyMode(m);
    if (!mode) {
      std::fprintf(stderr, "--modes: unknown mode '%s'\n", m.c_str());
      return 2;
    }
    if (config.modes.size() == 4 && !config.modesExplicit) config.modes.clear();
    config.modes.push_back(*mode);
    config.modesExplicit = true;
  }
  const auto c = cluster(nodes);
  auto trace = synthesizeForSharingStudy(*c, sc);
  if (!trace) {
    std::fprintf(stderr, "%s\n", trace.error().str().c_str());
    return 1;
  }
  const auto t0 = std::chrono::steady_clock::now();
  auto study = runSharingStudy(*c, *trace, config);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!study) {
    std::fprintf(stderr, "%s\n", study.error().str().c_str());
    return 1;
  }
  std::printf("%zu jobs on %zu GPUs, %s: wall %.2f s\n", sc.jobs, c->gpus().size(),
              bench::cpuModel().c_str(), wall);
  for (const auto& f : study->modes)
    std::printf("  %-13s %d runs, %.2f s\n", sharingStudyModeName(f.mode), f.runs, f.wallSeconds);
  std::printf("%s", sharingStudyText(*study).c_str());
  bench::printResult("wall", wall, "s", 1);
  return 0;
}
