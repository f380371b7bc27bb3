#pragma once
// Generators for the openb trace families the FGD paper varies (Weng et al., ATC'23, §6): from the
// default pod list, by resampling its own pods, a list where one property has the asked share.
//   cpu-only:  CPU-only tasks are `share` of all tasks by count; the GPU tasks are default's
//              (the published cpuXXX files are built so).
//   gpushare:  GPU-sharing tasks request `share` of the GPU demand; as many GPU tasks as default
//              (gpushareXX), each drawn from default's sharing or non-sharing GPU tasks.
//   multigpu:  multi-GPU tasks (2+ GPUs) request `share` of the GPU demand; likewise (multigpuXX).
//   gpuspec:   `share` of the GPU tasks carry a gpu_spec model constraint; otherwise default
//              (gpuspecXX). The lists and their frequencies are the published gpuspec trace's
//              (openb_families.cpp), drawn among those with a node that can hold the task.
// Deterministic for a seed (own std::mt19937_64 and integer sampling).
#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.h"
#include "sim/openb_data.h"

namespace tessera {

enum class OpenbFamily { CpuOnly, GpuShare, MultiGpu, GpuSpec };

struct OpenbFamilySpec {
  OpenbFamily family = OpenbFamily::CpuOnly;
  double share = 0;  // 0..1, as defined above
};

// "cpu-only:0.25", "gpushare:0.6", "multigpu:0.5", "gpuspec:0.2" (a share or a percentage "50%").
Expected<OpenbFamilySpec> parseOpenbFamily(const std::string& text);
std::string openbFamilyName(const OpenbFamilySpec& spec);  // "multigpu50"

// The generated pod list; rows are copies of `base` rows, renamed "<family>-NNNNN" (gpuspec: with
// a spec added). Fails when `base` lacks the tasks to draw from (no CPU-only tasks, ...).
Expected<std::vector<OpenbPodRow>> generateOpenbFamily(const std::vector<OpenbPodRow>& base,
                                                       const std::vector<OpenbNode>& nodes,
                                                       const OpenbFamilySpec& spec, uint64_t seed);

// The property each family sets, measured on a pod list (the tests' and the table's check).
double openbFamilyShare(const std::vector<OpenbPodRow>& pods, OpenbFamily family);

}  // namespace tessera
