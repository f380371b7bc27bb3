#include "sim/openb_bound.h"

#include <algorithm>
#include <map>

#include "sim/openb_experiment.h"

namespace tessera {

int64_t packBestFitDecreasing(std::vector<PackPod> pods, int64_t gpus) {
  // Largest per-GPU demand first (whole GPUs, then shares), more GPUs first among equals.
  std::sort(pods.begin(), pods.end(), [](const PackPod& a, const PackPod& b) {
    return a.milli != b.milli ? a.milli > b.milli : a.gpus > b.gpus;
  });
  int64_t freeGpus = gpus, packed = 0;
  std::map<int32_t, int64_t> partial;  // free milli of a partly used GPU -> how many such GPUs
  for (const auto& p : pods) {
    if (p.milli >= 1000) {
      if (freeGpus < p.gpus) continue;
      freeGpus -= p.gpus;
      packed += int64_t{p.gpus} * 1000;
      continue;
    }
    // Best fit: the partly used GPU with the least room that holds the share, else a free one.
    auto it = partial.lower_bound(p.milli);
    int32_t room = 0;
    if (it != partial.end()) {
      room = it->first;
      if (--it->second == 0) partial.erase(it);
    } else if (freeGpus > 0) {
      room = 1000;
      --freeGpus;
    } else {
      continue;
    }
    packed += p.milli;
    if (room - p.milli > 0) ++partial[room - p.milli];
  }
  return packed;
}

OpenbPackedBound openbPackedBound(const std::vector<OpenbNode>& nodes,
                                  const std::vector<OpenbPodRow>& pods, uint64_t seed,
                                  double tune) {
  int64_t gpus = 0;
  for (const auto& n : nodes) gpus += n.gpus;
  const int64_t capacity = gpus * 1000;
  const OpenbArrivals arrivals = tuneOpenbWorkload(pods, capacity, tune, seed);
  OpenbPackedBound b;
  std::vector<PackPod> arrived;
  for (size_t i : arrivals.order) {
    // The experiment's reading: milli clipped to 1000, a GPU count without milli is CPU-only.
    const int32_t milli = std::clamp(pods[i].gpuMilli, 0, 1000);
    if (milli == 0 || pods[i].numGpu == 0) continue;
    const int64_t demand = int64_t{pods[i].numGpu} * milli;
    if (b.arrivedMilli + demand > capacity) break;
    b.arrivedMilli += demand;
    arrived.push_back({pods[i].numGpu, milli});
  }
  b.packedMilli = packBestFitDecreasing(std::move(arrived), gpus);
  b.unallocatedPercent = 100.0 * double(capacity - b.packedMilli) / double(capacity);
  return b;
}

}  // namespace tessera
