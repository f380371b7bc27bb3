#pragma once
// The heatmaps' fragmentation layer (the desktop's and `tessera top`'s): for every GPU, the share
// of it that is free but that no waiting request can use where it is - capacity lost to
// fragmentation rather than to a lack of work. The rule per kind of GPU:
//   - MIG: free memory slices that are stranded for the pending MIG profiles (the MIG map's
//     rule, migSliceStates), as a share of the GPU's slices;
//   - time-sliced: the free share, when it is smaller than the smallest pending share;
//   - whole GPUs: a free GPU on a node that is partly in use, when the node's free GPUs are
//     fewer than the smallest pending whole-GPU task asks for.
//   - MPS: none (0); MPS requests are not fractions, and its servers' room is their own.
// A node that is not up counts as unavailable, not fragmented (0). Plain functions over the
// session's value types, so they are tested without painting and shared by both consoles.
#include <string>
#include <vector>

#include "mig/mig_slices.h"
#include "service/session.h"
#include "topology/gpu_catalog.h"

namespace tessera {

// What the pending jobs ask for, as far as fragmentation goes.
struct FragmentationDemand {
  std::vector<std::string> migProfiles;  // empty: the MIG map's "any profile" rule
  int minWholeGpus = 0;                  // smallest whole-GPU task; 0 = none pending
  int minMilli = 0;                      // smallest time-sliced share; 0 = none pending

  static FragmentationDemand of(const std::vector<JobInfo>& jobs);
  bool operator==(const FragmentationDemand&) const = default;
};

// The memory slices of a GPU in MIG mode under the demanded profiles (the MIG map's rule), as
// many as its model's MIG geometry in `catalog` has; empty for a GPU not in MIG mode, a model
// without MIG geometry or a layout that cannot be read.
std::vector<MigSliceState> gpuMigSliceStates(const GpuView& gpu, const GpuCatalog& catalog,
                                             const std::vector<std::string>& profiles);

// One value per GPU of `snapshot`, nodes in order and each node's GPUs in order (0..1).
std::vector<std::vector<double>> gpuFragmentation(const ClusterSnapshot& snapshot,
                                                  const FragmentationDemand& demand,
                                                  const GpuCatalog& catalog);

}  // namespace tessera
