// The openb placement-quality experiment (FGD paper, USENIX ATC'23; docs/openb-experiment.md).
//   bench_openb                 one full default-trace run (seed 42) per policy: wall s, pods/s
//   bench_openb --table         every trace of the paper's table x policy x seeds 42..51, each
//                               seed's unallocated GPU % and the means next to the anchors
// Options: --data DIR (the openb CSVs), --traces a,b --policies a,b --seeds 42-51 --threads N,
// --uniform-ties (break ties uniformly instead of by the per-seed node order), --engine-ties
// (the engine's rule: fewest free whole GPUs, then the node order). A trace may be a family
// generated from default (sim/openb_families.h): --traces multigpu:50%,gpuspec:20%. --bound
// adds the offline packer's figure (sim/openb_bound.h) under each table. --policies also
// takes the ablation variants (fgd-online, fgd-exact, tessera-oracle, tessera-exact).
// The timing mode prints one RESULT line per run (bench_stats.h), <trace>.<policy>.<seed>.wall:
// its wall time covers tuning, placement and the metric, not reading the CSVs. "pods/s" is pods
// placed per second of that replay, not a scheduler's throughput under a queue.
// Run: build/release/tests/bench/bench_openb --table
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench_stats.h"
#include "sim/openb_bound.h"
#include "sim/openb_experiment.h"
#include "sim/openb_families.h"

using namespace tessera;

namespace {

// Published means over seeds 42..51 (unallocated GPU % at 100 % arrived; paper Fig. 7/9/11).
const std::map<std::string, std::map<std::string, double>> kAnchors = {
    {"default", {{"random", 13.70}, {"dot-product", 9.38}, {"best-fit", 7.14}, {"fgd", 4.77}}},
    {"cpu050", {{"random", 10.98}, {"dot-product", 6.97}, {"best-fit", 6.44}, {"fgd", 5.00}}},
    {"cpu100", {{"random", 12.57}, {"dot-product", 8.27}, {"best-fit", 6.74}, {"fgd", 4.79}}},
    {"cpu200", {{"random", 16.97}, {"dot-product", 12.55}, {"best-fit", 7.85}, {"fgd", 5.18}}},
    {"gpushare40", {{"random", 15.14}, {"dot-product", 10.70}, {"best-fit", 8.56}, {"fgd", 6.04}}},
    {"gpushare80",
     {{"random", 19.38}, {"dot-product", 15.86}, {"best-fit", 13.34}, {"fgd", 10.92}}},
    {"gpushare100",
     {{"random", 21.10}, {"dot-product", 18.02}, {"best-fit", 15.38}, {"fgd", 13.36}}},
};
const std::vector<std::string> kTableTraces = {"default",    "cpu050",     "cpu100",     "cpu200",
                                               "gpushare40", "gpushare80", "gpushare100"};

struct Options {
  std::string data = TESSERA_OPENB_DIR;
  bool table = false;
  std::vector<std::string> traces{"default"};
  std::vector<std::string> policies = openbPolicyNames();
  std::vector<uint64_t> seeds;
  int threads = 0;
  OpenbTieBreak ties = OpenbTieBreak::NodeOrder;
  bool bound = false;  // also print the offline packer's figure per trace
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string t; std::getline(in, t, ',');)
    if (!t.empty()) out.push_back(t);
  return out;
}

// "42-51" or "42,45".
std::vector<uint64_t> seedList(const std::string& s) {
  std::vector<uint64_t> out;
  for (const auto& part : split(s)) {
    const auto dash = part.find('-');
    const uint64_t lo = std::stoull(part.substr(0, dash));
    const uint64_t hi = dash == std::string::npos ? lo : std::stoull(part.substr(dash + 1));
    for (uint64_t x = lo; x <= hi; ++x) out.push_back(x);
  }
  return out;
}

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool hasValue = i + 1 < argc;
    if (a == "--table") {
      o.table = true;
      o.traces = kTableTraces;
    } else if (a == "--data" && hasValue) {
      o.data = argv[++i];
    } else if (a == "--traces" && hasValue) {
      o.traces = split(argv[++i]);
    } else if (a == "--policies" && hasValue) {
      o.policies = split(argv[++i]);
    } else if (a == "--seeds" && hasValue) {
      o.seeds = seedList(argv[++i]);
    } else if (a == "--threads" && hasValue) {
      o.threads = std::atoi(argv[++i]);
    } else if (a == "--uniform-ties") {
      o.ties = OpenbTieBreak::Uniform;
    } else if (a == "--bound") {
      o.bound = true;
    } else if (a == "--engine-ties") {
      o.ties = OpenbTieBreak::Engine;
    } else {
      std::fprintf(stderr, "bench_openb: unknown option '%s'\n", a.c_str());
      return false;
    }
  }
  if (o.seeds.empty()) o.seeds = o.table ? seedList("42-51") : seedList("42");
  return true;
}

struct Input {
  std::vector<OpenbNode> nodes;
  std::vector<OpenbPodRow> pods;
};

// The generator's seed for a family trace: one fixed list per family, as the published files are
// (the run seeds then shuffle and tune it).
constexpr uint64_t kFamilySeed = 2023;

// A trace file's stem ("gpushare80"), or a generated family ("multigpu:50%", from default).
Expected<std::vector<OpenbPodRow>> podsOf(const Options& o, const std::string& trace,
                                          const std::vector<OpenbNode>& nodes) {
  if (trace.find(':') == std::string::npos)
    return readOpenbPodRows(o.data + "/openb_pod_list_" + trace + ".csv");
  TESSERA_TRY(family, parseOpenbFamily(trace));
  TESSERA_TRY(base, readOpenbPodRows(o.data + "/openb_pod_list_default.csv"));
  return generateOpenbFamily(base, nodes, family, kFamilySeed);
}

bool load(const Options& o, const std::string& trace, Input& in) {
  auto nodes = readOpenbNodeList(o.data + "/openb_node_list_gpu_node.csv");
  if (!nodes) {
    std::fprintf(stderr, "bench_openb: %s\n", nodes.error().str().c_str());
    return false;
  }
  auto pods = podsOf(o, trace, *nodes);
  if (!pods) {
    std::fprintf(stderr, "bench_openb: %s\n", pods.error().str().c_str());
    return false;
  }
  in = {std::move(*nodes), std::move(*pods)};
  return true;
}

// One run per policy and seed on a single thread: the per-run cost.
int timing(const Options& o) {
  for (const auto& trace : o.traces) {
    Input in;
    if (!load(o, trace, in)) return 2;
    std::printf("trace %s: %zu nodes, %zu pods\n", trace.c_str(), in.nodes.size(), in.pods.size());
    std::printf("%-15s %6s %10s %10s %8s %12s\n", "policy", "seed", "unalloc%", "wall s", "pods",
                "pods/s");
    for (const auto& policy : o.policies)
      for (uint64_t seed : o.seeds) {
        auto run = runOpenbOnce(in.nodes, in.pods, {policy, seed, 1.3, o.ties, false});
        if (!run) {
          std::fprintf(stderr, "bench_openb: %s\n", run.error().str().c_str());
          return 2;
        }
        std::printf("%-15s %6llu %10.2f %10.3f %8zu %12.0f\n", policy.c_str(),
                    static_cast<unsigned long long>(seed), run->unallocatedAt100, run->wallSeconds,
                    run->pods, static_cast<double>(run->pods) / run->wallSeconds);
        bench::printResult(trace + "." + policy + "." + std::to_string(seed) + ".wall",
                           run->wallSeconds, "s", 1);
      }
  }
  return 0;
}

void printTrace(const std::string& trace, const Options& o, const std::vector<OpenbRun>& runs) {
  std::printf("\n### %s\n\n| policy |", trace.c_str());
  for (uint64_t s : o.seeds) std::printf(" %llu |", static_cast<unsigned long long>(s));
  std::printf(" mean | anchor | diff |\n|---|");
  for (size_t i = 0; i < o.seeds.size() + 3; ++i) std::printf("---:|");
  std::printf("\n");
  std::map<std::string, double> means;
  for (size_t p = 0; p < o.policies.size(); ++p) {
    double sum = 0;
    std::printf("| %s |", o.policies[p].c_str());
    for (size_t s = 0; s < o.seeds.size(); ++s) {
      const double v = runs[p * o.seeds.size() + s].unallocatedAt100;
      sum += v;
      std::printf(" %.2f |", v);
    }
    const double mean = sum / static_cast<double>(o.seeds.size());
    means[o.policies[p]] = mean;
    const auto anchors = kAnchors.find(trace);
    const bool has = anchors != kAnchors.end() && anchors->second.count(o.policies[p]) > 0;
    if (has) {
      const double anchor = anchors->second.at(o.policies[p]);
      std::printf(" **%.2f** | %.2f | %+.2f |\n", mean, anchor, mean - anchor);
    } else {
      std::printf(" **%.2f** | - | - |\n", mean);
    }
  }
  const auto anchors = kAnchors.find(trace);
  if (means.count("tessera") && anchors != kAnchors.end()) {
    const double fgd = anchors->second.at("fgd");
    std::printf("\ntessera vs published FGD %.2f: %+.1f %% relative (goal <= -10 %%)", fgd,
                100.0 * (means["tessera"] - fgd) / fgd);
    if (means.count("fgd"))
      std::printf("; vs our FGD %.2f: %+.1f %%", means["fgd"],
                  100.0 * (means["tessera"] - means["fgd"]) / means["fgd"]);
    std::printf("\n");
  }
}

// The offline packer's estimate of the lowest reachable figure (sim/openb_bound.h), per seed.
void printBound(const Input& in, const Options& o) {
  double sum = 0;
  std::printf("offline packer (CPU, memory, nodes and models ignored):");
  for (uint64_t seed : o.seeds) {
    const double u = openbPackedBound(in.nodes, in.pods, seed).unallocatedPercent;
    std::printf(" %.2f", u);
    sum += u;
  }
  std::printf("; mean **%.2f**\n", sum / double(o.seeds.size()));
}

int table(const Options& o) {
  for (const auto& trace : o.traces) {
    Input in;
    if (!load(o, trace, in)) return 2;
    const auto start = std::chrono::steady_clock::now();
    auto runs =
        runOpenbExperiment(in.nodes, in.pods, {o.policies, o.seeds, 1.3, o.threads, o.ties});
    if (!runs) {
      std::fprintf(stderr, "bench_openb: %s\n", runs.error().str().c_str());
      return 2;
    }
    printTrace(trace, o, *runs);
    if (o.bound) printBound(in, o);
    std::printf("(%zu runs in %.1f s)\n", runs->size(),
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    std::fflush(stdout);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) return 2;
  return o.table ? table(o) : timing(o);
}
