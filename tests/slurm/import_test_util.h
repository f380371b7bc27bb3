#pragma once
// What the import tests count on both sides: GPUs and MIG instances of a Slurm GRES list (whole
// vs. MIG-typed) and of an imported node (exclusive/time-sliced/MPS vs. MIG mode), and how the
// whole GPUs are shared (gres/shard: replicas per GPU; gres/mps: MPS).
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
  int replicasPerGpu = 0;          // time-sliced replicas of each whole GPU (0: not time-sliced)
  bool mps = false;                // the whole GPUs run MPS
};

inline GpuCounts countsOf(const std::vector<slurm::GresCount>& gres) {
  GpuCounts c;
  int shards = 0;
  for (const auto& g : gres) {
    if (g.name == "shard") shards += static_cast<int>(g.count);
    if (g.name == "mps") c.mps = g.count > 0;
    if (g.name != "gpu") continue;
    if (auto m = slurm::parseMigGresType(g.type))
      c.mig[m->profile] += g.count;
    else
      c.whole += g.count;
  }
  if (shards > 0 && c.whole > 0) c.replicasPerGpu = shards / c.whole;
  return c;
}

inline GpuCounts countsOf(const Cluster& cluster, const Node& n) {
  GpuCounts c;
  for (int i = 0; i < n.gpuCount(); ++i) {
    const Gpu& g = cluster.gpu(n.firstGpu + static_cast<GpuId>(i));
    if (g.sharing.mode != SharingMode::Mig) {
      ++c.whole;
      if (g.sharing.mode == SharingMode::TimeSliced) c.replicasPerGpu = g.sharing.replicas;
      c.mps = c.mps || g.sharing.runsMps();
      continue;
    }
    ++c.migGpus;
    for (const MigInstance& inst : g.sharing.mig)
      ++c.mig[n.gpuModel().mig->profiles[static_cast<size_t>(inst.profile)].name];
  }
  return c;
}

}  // namespace tessera::test
