#include "service/mps_use.h"

#include <algorithm>

namespace tessera {

std::vector<MpsServerUse> mpsServerUse(const GpuView& gpu) {
  std::vector<MpsServerUse> out;
  if (!gpu.mps) return out;
  if (gpu.sharing != "mig") out.push_back({});
  for (const GpuView::Occupant& o : gpu.occupants) {
    if (!o.mps()) continue;
    auto it = std::find_if(out.begin(), out.end(),
                           [&o](const MpsServerUse& u) { return u.instanceStart == o.migStart; });
    if (it == out.end()) it = out.insert(out.end(), MpsServerUse{o.migStart, 0, 0, 0});
    it->clients += 1;
    it->threads += o.mpsThreads;
    it->memoryMiB += o.mpsMemoryMiB;
  }
  std::sort(out.begin(), out.end(), [](const MpsServerUse& a, const MpsServerUse& b) {
    return a.instanceStart < b.instanceStart;
  });
  return out;
}

std::optional<MpsServerUse> gpuMpsServer(const GpuView& gpu) {
  if (!gpu.mps || gpu.sharing == "mig") return std::nullopt;
  return mpsServerUse(gpu).front();
}

std::vector<std::pair<std::string, std::string>> mpsEnvironment(const GpuRequest& request) {
  if (request.kind != GpuRequest::Kind::Mps) return {};
  return {{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", std::to_string(request.mpsThreads)},
          {"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=" + std::to_string(request.vramMiB) + "M"}};
}

}  // namespace tessera
