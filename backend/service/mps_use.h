#pragma once
// What the MPS servers of a GPU hand out, read from the snapshot's GpuView: per server (one on
// the GPU, or one per MIG instance) its clients, the active-thread percentages and the pinned
// memory limits they hold. Both consoles show it (heatmap, GPU rows, tooltips), so it is one
// plain function over the session's value types; so is the environment a client's limits come
// to it in (the job views show it).
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "service/session.h"

namespace tessera {

struct MpsServerUse {
  int instanceStart = -1;  // the MIG instance it serves (its first slice); -1 = the GPU's own
  int clients = 0;
  int threads = 0;        // active-thread percentages handed out, summed
  int64_t memoryMiB = 0;  // pinned device memory limits, summed
  friend bool operator==(const MpsServerUse&, const MpsServerUse&) = default;
};

// The servers with clients, in instance order; a GPU that runs MPS itself always has its own
// (with no clients when idle). Empty when the GPU runs no MPS.
std::vector<MpsServerUse> mpsServerUse(const GpuView& gpu);
// The GPU's own server (MPS on the whole GPU, not in MIG instances); none otherwise.
std::optional<MpsServerUse> gpuMpsServer(const GpuView& gpu);

// The limits an MPS server enforces on a client of this request, as the variables it reads:
// CUDA_MPS_ACTIVE_THREAD_PERCENTAGE ("25") and CUDA_MPS_PINNED_DEVICE_MEM_LIMIT ("0=8192M": the
// task's one GPU is its device 0). Empty for requests of other kinds.
std::vector<std::pair<std::string, std::string>> mpsEnvironment(const GpuRequest& request);

}  // namespace tessera
