#pragma once
// What the import tests count on both sides: GPUs and MIG instances of a Slurm GRES list (whole
// vs. MIG-typed) and of an imported node (exclusive/time-sliced vs. MIG mode).
#include <map>
#include <string>
#include <vector>

#include "slurm/slurm_import.h"
#include "topology/cluster.h"

namespace tessera::test {

struct GpuCounts {
  int whole = 0;                   // GPUs not in MIG mode
  int migGpus = 0;                 // GPUs in MIG mode (imported nodes only)
  std::map<std::string, int> mig;  // MIG instances per profile
};

inline GpuCounts countsOf(const std::vector<slurm::GresCount>& gres) {
  GpuCounts c;
  for (const auto& g : gres) {
    if (auto m = slurm::parseMigGresType(g.type))
      c.mig[m->profile] += g.count;
    else
      c.whole += g.count;
  }
  return c;
}

inline GpuCounts countsOf(const Cluster& cluster, const Node& n) {
  GpuCounts c;
  for (int i = 0; i < n.gpuCount(); ++i) {
    const Gpu& g = cluster.gpu(n.firstGpu + static_cast<GpuId>(i));
    if (g.sharing.mode != SharingMode::Mig) {
      ++c.whole;
      continue;
    }
    ++c.migGpus;
    for (const MigInstance& inst : g.sharing.mig)
      ++c.mig[n.gpuModel().mig->profiles[static_cast<size_t>(inst.profile)].name];
  }
  return c;
}

}  // namespace tessera::test
