#pragma once
// The openb "inflate until full" placement-quality experiment of the FGD paper (Weng et al.,
// USENIX ATC'23), reproduced after hkust-adsl/kubernetes-scheduler-simulator: the 1213 GPU nodes
// of the Alibaba openb trace receive the trace's pods (shuffled by seed, then tuned up by sampling
// to 1.3x the GPU capacity); no pod ever leaves and a pod that fits nowhere is dropped. A policy
// is judged by how much GPU capacity is still unallocated when the arrived GPU demand reaches
// 100 % of capacity. See docs/openb-experiment.md for the method and the results.
#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.h"
#include "sim/openb_data.h"  // the input: OpenbNode and OpenbPodRow rows

namespace tessera {

// random, dot-product, gpu-clustering, gpu-packing, best-fit, fgd, tessera.
std::vector<std::string> openbPolicyNames();
// Variants the experiment also runs, for the ablation rows of docs/openb-experiment.md:
// fgd-online, fgd-exact, tessera-oracle, tessera-exact.
std::vector<std::string> openbAblationPolicyNames();

// How ties between equally scored nodes are broken.
enum class OpenbTieBreak {
  // The lowest of a per-seed random node order (the reference's random node-name prefixes). It
  // reproduces the published numbers; see docs/openb-experiment.md.
  NodeOrder,
  // Uniform among the tied nodes, as upstream kube-scheduler's selectHost.
  Uniform,
  // The engine's rule: the fewest fully free GPUs, then the per-seed node order (the engine's
  // candidate order were the nodes listed in that order).
  Engine,
};

inline constexpr int kOpenbMaxArrivedPercent = 130;

struct OpenbRun {
  std::string policy;
  uint64_t seed = 0;
  double unallocatedAt100 = 0;  // % of GPU capacity; NaN if no event arrived near 100 %
  // Index a = 0..130: mean allocation % over the events whose arrived demand rounds to a %
  // (falling back to a-1..a+1, as the reference does); NaN where there is none.
  std::vector<double> allocatedByArrived;
  size_t pods = 0;             // pods offered (originals and clones)
  size_t failed = 0;           // pods that fit nowhere (dropped for good)
  int64_t arrivedMilli = 0;    // GPU demand offered over the whole run
  int64_t allocatedMilli = 0;  // GPU milli allocated at the end
  double wallSeconds = 0;      // tuning, placement and metric (not reading or preparing input)
};

struct OpenbConfig {
  std::vector<std::string> policies;
  std::vector<uint64_t> seeds{42, 43, 44, 45, 46, 47, 48, 49, 50, 51};
  double tune = 1.3;  // arrived GPU demand to offer, as a multiple of GPU capacity
  int threads = 0;    // 0 = std::thread::hardware_concurrency()
  OpenbTieBreak ties = OpenbTieBreak::NodeOrder;
};

struct OpenbRunSpec {
  std::string policy;
  uint64_t seed = 42;
  double tune = 1.3;
  OpenbTieBreak ties = OpenbTieBreak::NodeOrder;
  // The pods arrive exactly as given: no shuffle, no tuning (hand-computed tests).
  bool replayAsGiven = false;
};

// One policy, one seed; deterministic for the seed (its own std::mt19937_64).
Expected<OpenbRun> runOpenbOnce(const std::vector<OpenbNode>& nodes,
                                const std::vector<OpenbPodRow>& pods, const OpenbRunSpec& spec);
// Every policy x seed, in parallel; results ordered policy-major, then by seed as configured.
Expected<std::vector<OpenbRun>> runOpenbExperiment(const std::vector<OpenbNode>& nodes,
                                                   const std::vector<OpenbPodRow>& pods,
                                                   const OpenbConfig& config);

// The arrival order of one run: the pods sorted by name and shuffled, then tuned to
// `tune` x capacity. Tuning up appends clones sampled uniformly with replacement from the
// name-sorted pods until the next clone's per-GPU milli would overshoot (the reference's quirk);
// tuning down drops random pods. Values are indices into `pods`.
struct OpenbArrivals {
  std::vector<size_t> order;
  size_t originals = 0;  // how many leading entries are original pods (the rest are clones)
};
OpenbArrivals tuneOpenbWorkload(const std::vector<OpenbPodRow>& pods, int64_t capacityMilli,
                                double tune, uint64_t seed);

// The metric from a run's event log: after every pod, the cumulative arrived GPU demand and the
// allocated GPU milli. Returns allocatedByArrived as in OpenbRun.
struct OpenbEvent {
  int64_t arrivedMilli = 0;
  int64_t allocatedMilli = 0;
};
std::vector<double> openbAllocationByArrived(const std::vector<OpenbEvent>& events,
                                             int64_t capacityMilli);

}  // namespace tessera
