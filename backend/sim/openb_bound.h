#pragma once
// How low the unallocated share at 100 % arrived can go on an openb trace, estimated offline: the
// pods that arrive by 100 % (a seed's arrival order, as runOpenbOnce draws it) packed with full
// knowledge, best-fit decreasing into the cluster's GPUs, with CPU, memory, node boundaries and
// GPU models ignored (each only makes an online policy's job harder). Not a proof of optimality:
// the packer is a heuristic for the relaxed problem; docs/openb-experiment.md says how it is used.
#include <cstdint>
#include <vector>

#include "sim/openb_data.h"

namespace tessera {

struct OpenbPackedBound {
  double unallocatedPercent = 0;  // % of GPU capacity the offline packer leaves unallocated
  int64_t arrivedMilli = 0;       // GPU demand of the pods that arrived by 100 %
  int64_t packedMilli = 0;
};

OpenbPackedBound openbPackedBound(const std::vector<OpenbNode>& nodes,
                                  const std::vector<OpenbPodRow>& pods, uint64_t seed,
                                  double tune = 1.3);

// The packer alone: per-GPU milli demands of pods (count GPUs each) into `gpus` GPUs of 1000.
struct PackPod {
  int gpus = 0;
  int32_t milli = 0;
};
int64_t packBestFitDecreasing(std::vector<PackPod> pods, int64_t gpus);

}  // namespace tessera
