#pragma once
// The openb experiment's baseline scores (the reference simulator's plugins: Tetris dot product,
// BestFit, GpuPacking, GpuClustering) and its GPU choice rules, on the node and pod model of
// scheduler/fragmentation.h. FGD and our policy are not here: they are the engine's score code
// (scheduler/fragmentation.h), which the experiment calls directly. The reference's integer
// truncations are reproduced on purpose: they create the large tie sets whose breaking shapes the
// published numbers.
#include <array>
#include <cstdint>
#include <vector>

#include "scheduler/fragmentation.h"

namespace tessera::openb {

// The experiment works on the engine's fragmentation model; these names keep its code short.
using frag::fgdScore;
using frag::fullyFreeGpus;
using frag::gpuFilterPasses;
using frag::gpusWithAtLeast;
using frag::idleMilli;
using frag::isCpuOnly;
using frag::isSharing;
using frag::kAnyModel;
using frag::kMaxGpusPerNode;
using frag::kMilliPerGpu;
using frag::NodeView;
using frag::PodClassCount;
using frag::PodDemand;
using frag::selectTypicalPods;
using frag::totalMilli;
using frag::TypicalPod;
using frag::withPod;

// The reference normalises by the largest node it was written for (MaxSpecCpu, MaxSpecGpu).
inline constexpr double kMaxSpecCpu = 128000.0;
inline constexpr double kMaxSpecGpu = 8000.0;

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
