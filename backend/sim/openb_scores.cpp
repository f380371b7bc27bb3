#include "sim/openb_scores.h"

#include <algorithm>
#include <cmath>

namespace tessera::openb {

using frag::ascendingByLeft;
using frag::gpusOf;

int64_t dotProductScore(const NodeView& n, const PodDemand& p) {
  const std::array<double, 2> node{static_cast<double>(n.cpuLeft) / kMaxSpecCpu,
                                   static_cast<double>(idleMilli(n)) / kMaxSpecGpu};
  const std::array<double, 2> pod{static_cast<double>(p.cpu) / kMaxSpecCpu,
                                  static_cast<double>(totalMilli(p)) / kMaxSpecGpu};
  if (node[0] < pod[0]) return 0;
  double dot = 0;
  for (size_t i = 0; i < node.size(); ++i) dot += node[i] * pod[i];
  const double score = 1.0 - dot / static_cast<double>(pod.size());
  return static_cast<int64_t>(100.0 * score);
}

int64_t bestFitScore(const NodeView& n, const PodDemand& p) {
  const std::array<double, 2> freeVec{static_cast<double>(n.cpuLeft),
                                      static_cast<double>(idleMilli(n))};
  const std::array<double, 2> reqVec{static_cast<double>(p.cpu),
                                     static_cast<double>(totalMilli(p))};
  const std::array<double, 2> maxSpec{kMaxSpecCpu, kMaxSpecGpu};
  double score = 0;
  for (size_t i = 0; i < freeVec.size(); ++i) {
    if (freeVec[i] < reqVec[i]) return 0;
    score += (freeVec[i] - reqVec[i]) / maxSpec[i] * 0.5;
  }
  return static_cast<int64_t>((1.0 - score) * 100.0);
}

int64_t gpuPackingScore(const NodeView& n, const PodDemand& p) {
  if (isCpuOnly(p)) return 0;
  const int free = fullyFreeGpus(n);
  // A GPU-idle node ranks last; among those, more GPUs is worse (capped from below).
  if (free == n.gpus) return std::max<int64_t>(33 - free, free);
  int needed = p.numGpu;
  int freeTaken = 0;
  int64_t leftPercentOnTaken = 0;
  for (int g : ascendingByLeft(n)) {
    if (needed == 0) break;
    const int32_t left = n.left[static_cast<size_t>(g)];
    if (left < p.milli) continue;
    --needed;
    freeTaken += left == kMilliPerGpu ? 1 : 0;
    leftPercentOnTaken += static_cast<int64_t>(left) * 100 / kMilliPerGpu;
  }
  if (needed != 0) return 0;
  if (freeTaken > 0) return std::max<int64_t>(50 - freeTaken, 33);
  return std::max<int64_t>(100 - leftPercentOnTaken / 10, 50);
}

int gpuTagOf(const PodDemand& p) {
  if (isCpuOnly(p)) return -1;
  if (isSharing(p)) return 0;
  return std::clamp(p.numGpu, 1, kMaxGpusPerNode);
}

void addGpuTag(GpuTags& tags, const PodDemand& p) {
  const int tag = gpuTagOf(p);
  if (tag >= 0) ++tags.count[static_cast<size_t>(tag)];
}

int64_t gpuClusteringScore(const NodeView& n, const GpuTags& tags, const PodDemand& p) {
  const int tag = gpuTagOf(p);
  if (tag < 0) return 0;
  const auto kinds =
      std::count_if(tags.count.begin(), tags.count.end(), [](int32_t c) { return c > 0; });
  const int64_t base =
      25 * (static_cast<int64_t>(kMaxSpecGpu) - idleMilli(n)) / static_cast<int64_t>(kMaxSpecGpu);
  if (tags.count[static_cast<size_t>(tag)] > 0) return base + (kinds == 1 ? 75 : 50);
  return base + (kinds == 0 ? 25 : 0);
}

int bestFitGpu(const NodeView& n, int32_t milli) {
  int best = -1;
  for (int g = 0; g < static_cast<int>(gpusOf(n).size()); ++g) {
    const int32_t left = n.left[static_cast<size_t>(g)];
    if (left >= milli && (best < 0 || left < n.left[static_cast<size_t>(best)])) best = g;
  }
  return best;
}

std::vector<int> firstFreeGpus(const NodeView& n, int count) {
  std::vector<int> out;
  for (int g = 0; g < static_cast<int>(gpusOf(n).size()) && static_cast<int>(out.size()) < count;
       ++g)
    if (n.left[static_cast<size_t>(g)] == kMilliPerGpu) out.push_back(g);
  return out;
}

}  // namespace tessera::openb
