#pragma once
// The engine-independent math of the openb placement experiment (FGD paper, Weng et al., USENIX
// ATC'23, as implemented in hkust-adsl/kubernetes-scheduler-simulator): the node and pod model the
// policies see, the Open-Gpu-Share filter, FGD's fragmentation measure and score, and the
// baselines' integer score formulas. Pure functions of their arguments, so each can be checked on
// a hand-computed node. The reference's integer truncations are reproduced on purpose: they create
// the large tie sets whose random breaking shapes the published numbers.
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tessera::openb {

inline constexpr int kMaxGpusPerNode = 8;
inline constexpr int32_t kMilliPerGpu = 1000;
// The reference normalises by the largest node it was written for (MaxSpecCpu, MaxSpecGpu).
inline constexpr double kMaxSpecCpu = 128000.0;
inline constexpr double kMaxSpecGpu = 8000.0;
inline constexpr uint32_t kAnyModel = 0xffffffffu;

// What the policies see of a node. The reference uses memory only in the kube filter, never in a
// score; only our policy reads it.
struct NodeView {
  int64_t cpuLeft = 0;  // milli-cores
  int64_t memLeft = 0;  // MiB
  int gpus = 0;
  int model = 0;                                // index into the experiment's model table
  std::array<int32_t, kMaxGpusPerNode> left{};  // free milli per GPU; entries >= gpus stay 0
};

// A pod's resource tuple as the reference's GetPodResource builds it, plus memory (which only the
// kube filter and our policy read).
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

// --- FGD (paper §4; reference frag.go) ---

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
// suffices for none. (Memory was tried the same way and did not help on the openb traces.)
[[nodiscard]] int64_t reachFragmentFor(const NodeView& n, const PodDemand& t);
[[nodiscard]] double nodeReachFragmentation(const NodeView& n, std::span<const TypicalPod> typical);
// FGD's integer score for a move that takes F from `before` to `after`: int(sigmoid(dF/1000)*100).
[[nodiscard]] int64_t fgdScore(double before, double after);

// --- Baselines (reference plugins; all int64 in [0, 100]) ---

// Tetris dot product with merged dimensions and max normalisation; higher = smaller product.
[[nodiscard]] int64_t dotProductScore(const NodeView& n, const PodDemand& p);
// BestFit before min-max normalisation (which keeps the argmax set, so it is skipped).
[[nodiscard]] int64_t bestFitScore(const NodeView& n, const PodDemand& p);
[[nodiscard]] int64_t gpuPackingScore(const NodeView& n, const PodDemand& p);

// GpuClustering's per-node record of which kinds of GPU pods it hosts: slot 0 = "share-gpu",
// slot k = "k-gpu" (whole GPUs). CPU-only pods are not recorded.
struct GpuTags {
  std::array<int32_t, kMaxGpusPerNode + 1> count{};
};
[[nodiscard]] int gpuTagOf(const PodDemand& p);  // -1 for CPU-only pods
void addGpuTag(GpuTags& tags, const PodDemand& p);
[[nodiscard]] int64_t gpuClusteringScore(const NodeView& n, const GpuTags& tags,
                                         const PodDemand& p);

// GPU choice inside a node for a sharing pod under the reference's "best" rule: the GPU with the
// least free milli that still holds the pod, lowest index on ties; -1 when none.
[[nodiscard]] int bestFitGpu(const NodeView& n, int32_t milli);
// The GPUs a whole-GPU pod takes under every policy: the first `count` fully free ones.
[[nodiscard]] std::vector<int> firstFreeGpus(const NodeView& n, int count);

}  // namespace tessera::openb
