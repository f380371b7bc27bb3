#pragma once
// The one implementation of fragmentation-gradient scoring (FGD: Weng et al., "Beware of
// Fragmentation", USENIX ATC'23, as hkust-adsl/kubernetes-scheduler-simulator implements it) and
// of our CPU-aware variant. The engine's `fgd` and `fgd-reach` score plugins and the openb
// experiment's fast path (`tessera simulate openb`) both call these functions, so the placement
// quality we publish is the engine's. Pure functions of a small node and pod model, so each can be
// checked on a hand-computed node. The reference's integer truncations are kept on purpose: they
// create the tie sets whose consistent breaking shapes the published numbers.
#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace tessera::frag {

inline constexpr int kMaxGpusPerNode = 8;
inline constexpr int32_t kMilliPerGpu = 1000;
inline constexpr uint32_t kAnyModel = 0xffffffffu;

// What a score sees of a node: free CPU and memory and the free milli of each GPU.
struct NodeView {
  int64_t cpuLeft = 0;  // milli-cores
  int64_t memLeft = 0;  // MiB
  int gpus = 0;
  int model = 0;                                // bit index into the pods' model masks
  std::array<int32_t, kMaxGpusPerNode> left{};  // free milli per GPU; entries >= gpus stay 0
};

// One pod (one task): CPU, memory, GPU count and per-GPU milli, allowed models.
struct PodDemand {
  int64_t cpu = 0;              // milli-cores
  int64_t mem = 0;              // MiB
  int numGpu = 0;               // 0 = CPU-only
  int32_t milli = 0;            // per GPU, 1..1000 when numGpu > 0, else 0
  uint32_t models = kAnyModel;  // bit m set = model m allowed (gpu_spec); 0 = none exists
};

[[nodiscard]] inline bool isCpuOnly(const PodDemand& p) {
  return p.numGpu == 0 || p.milli == 0;
}
// A GPU-sharing pod: one GPU, part of it. Only these have a GPU choice inside the node.
[[nodiscard]] inline bool isSharing(const PodDemand& p) {
  return p.numGpu == 1 && p.milli > 0 && p.milli < kMilliPerGpu;
}
[[nodiscard]] inline int64_t totalMilli(const PodDemand& p) {
  return isCpuOnly(p) ? 0 : static_cast<int64_t>(p.numGpu) * p.milli;
}
[[nodiscard]] inline bool modelAllowed(const PodDemand& p, int model) {
  return model >= 0 && model < 32 && ((p.models >> model) & 1u) != 0;
}

// The node's GPUs' free milli (the first n.gpus entries).
[[nodiscard]] std::span<const int32_t> gpusOf(const NodeView& n);
// GPU indices by ascending free milli, stable: the order the reference's Sub and GpuPacking walk.
[[nodiscard]] std::vector<int> ascendingByLeft(const NodeView& n);
[[nodiscard]] int64_t idleMilli(const NodeView& n);
[[nodiscard]] int fullyFreeGpus(const NodeView& n);
// GPUs that can each hold `milli` on their own.
[[nodiscard]] int gpusWithAtLeast(const NodeView& n, int32_t milli);
// The Open-Gpu-Share filter (CPU-only pods pass): model match and enough GPUs with room.
[[nodiscard]] bool gpuFilterPasses(const NodeView& n, const PodDemand& p);

// The node after placing `p` as FGD imagines it. A sharing pod goes on GPU `gpu`; any other pod
// takes, in ascending order of free milli (stable), the first GPUs that can hold it - the
// reference's NodeResource.Sub. CPU and memory are always subtracted.
[[nodiscard]] NodeView withPod(NodeView n, const PodDemand& p, int gpu = -1);

// One class of the target workload ("typical pod") and its probability.
struct TypicalPod {
  PodDemand demand;
  double weight = 0;
};

// A class with its count, before selection. `spec` is the '|'-joined model list; it only breaks
// ties in the order (the reference sorts count desc, then the tuple desc).
struct PodClassCount {
  PodDemand demand;
  std::string spec;
  double count = 0;
};

// The reference's GetTypicalPods: classes by count (desc), then tuple (desc); take them until the
// cumulative count reaches `threshold` of the total (the crossing class included); renormalise.
[[nodiscard]] std::vector<TypicalPod> selectTypicalPods(std::vector<PodClassCount> classes,
                                                        double threshold = 0.95);

// Fragmentation of node `n` as seen by class `t`, in milli-GPU (paper §4.2):
//   t is CPU-only, or `n` lacks t's model, or t cannot fit (GPU or CPU): all idle GPU milli;
//   t fits: only the milli on GPUs that individually cannot hold t's per-GPU demand.
[[nodiscard]] int64_t fragmentFor(const NodeView& n, const PodDemand& t);
// F(n) = sum_t p_t * fragmentFor(n, t), accumulated per fragment kind like the reference so the
// floating-point result (and thus truncated scores) matches it.
[[nodiscard]] double nodeFragmentation(const NodeView& n, std::span<const TypicalPod> typical);
// Ours: the idle milli that class `t` could never use on `n` even by placing several pods, with
// CPU counted for all of them (FGD asks only whether one more pod fits). GPUs too small for t are
// fragment as in FGD; of the GPUs that can hold t, those beyond what floor(cpuLeft / t.cpu) pods
// reach are stranded (the ones with the least free milli are assumed reached first, as tight
// placement would). Equals fragmentFor when CPU suffices for every such GPU, and idle when it
// suffices for none.
// `cpuReach` false: CPU only decides whether one pod fits (as FGD); `gpuReach` false: every GPU
// that holds t counts as reached once one pod fits (as FGD). Both false is FGD's fragmentFor.
[[nodiscard]] int64_t reachFragmentFor(const NodeView& n, const PodDemand& t, bool cpuReach = true,
                                       bool gpuReach = true);
[[nodiscard]] double nodeReachFragmentation(const NodeView& n, std::span<const TypicalPod> typical,
                                            bool cpuReach = true, bool gpuReach = true);

// Which fragmentation a score measures and how a move is scored.
struct Measure {
  bool reference = true;  // FGD as published (nodeFragmentation); else reach fragments
  bool cpuReach = false;  // reach fragments: count CPU for every pod a class could still place
  bool gpuReach = false;  // reach fragments: GPUs beyond whole multiples of t's GPU count strand
  double scale = 1000;    // milli-GPU of dF per sigmoid unit; 0 compares dF itself
  // Reach fragments: their weight against FGD's own measure (1 = reach alone). A partial weight
  // keeps FGD's view of a node where the reach count is too pessimistic.
  double reachWeight = 1;
  // A sharing pod's GPU among those with the same (truncated) score: the one whose placement
  // lowers F most, instead of the first by index. The coarse score ties many GPUs of a node; the
  // index order then leaves remainders no later pod can use.
  bool exactGpuTies = false;
};
// FGD as the paper's simulator computes it (the engine's `fgd` plugin).
inline constexpr Measure kFgdMeasure{};
// Ours (the openb `tessera` policy, the engine's `fgd-reach` plugin). Every field was chosen by
// cross-validation across trace families (docs/openb-experiment.md, "Generalization").
inline constexpr Measure kTesseraMeasure{false, true, false, 4000, 0.40, true};
[[nodiscard]] double fragmentation(const Measure& m, const NodeView& n,
                                   std::span<const TypicalPod> typical);

// FGD's integer score for a move that takes F from `before` to `after`:
// int(sigmoid(dF/scale)*100); the paper's scale is 1000.
[[nodiscard]] int64_t fgdScore(double before, double after, double scale = 1000);

// The score of placing `p` on `n` and, for a sharing pod, the GPU it takes: the first GPU (index
// order) among those in `allowed` with the best score or, with `exactTies`, the one among them
// with the lowest F after the move. `frag` maps a node to its F (callers memoise it); `scale` is
// fgdScore's, 0 compares dF itself. gpu = -1 when a sharing pod fits no allowed GPU (score -inf)
// or the pod is not a sharing one.
struct Move {
  double score = -std::numeric_limits<double>::infinity();
  int gpu = -1;
};
// The same with F(n) already known (the experiment memoises it per node state).
template <typename Frag>
[[nodiscard]] Move bestMoveFrom(double before, const NodeView& n, const PodDemand& p, Frag&& frag,
                                double scale = 1000, uint32_t allowed = 0xffu,
                                bool exactTies = false) {
  auto scoreOf = [&](double after) {
    return scale <= 0 ? before - after : static_cast<double>(fgdScore(before, after, scale));
  };
  if (!isSharing(p)) return {scoreOf(frag(withPod(n, p))), -1};
  Move best;
  double bestAfter = 0;
  for (int g = 0; g < n.gpus && g < kMaxGpusPerNode; ++g) {
    const int32_t left = n.left[static_cast<size_t>(g)];
    if (left < p.milli || ((allowed >> g) & 1u) == 0) continue;
    // F depends on the multiset of free milli: a GPU equal to an earlier one gives the same score.
    bool seen = false;
    for (int e = 0; e < g && !seen; ++e)
      seen = ((allowed >> e) & 1u) != 0 && n.left[static_cast<size_t>(e)] == left;
    if (seen) continue;
    const double after = frag(withPod(n, p, g));
    const double s = scoreOf(after);
    if (best.gpu < 0 || s > best.score || (exactTies && s == best.score && after < bestAfter)) {
      best = {s, g};
      bestAfter = after;
    }
  }
  return best;
}
template <typename Frag>
[[nodiscard]] Move bestMove(const NodeView& n, const PodDemand& p, Frag&& frag, double scale = 1000,
                            uint32_t allowed = 0xffu, bool exactTies = false) {
  return bestMoveFrom(frag(n), n, p, frag, scale, allowed, exactTies);
}

}  // namespace tessera::frag
