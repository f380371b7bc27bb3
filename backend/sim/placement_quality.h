#pragma once
// How well a policy places work, beyond how much it places: the MIG room it leaves for large
// instances, and whether its gangs stay inside one NVLink domain and one leaf switch. Measured
// on a simulation's placements (the engine's own), for `simulate compare`. Definitions:
// docs/simulator.md#placement-quality.
#include <cstddef>
#include <vector>

#include "core/expected.h"
#include "core/ids.h"
#include "topology/cluster.h"

namespace tessera {

class ClusterState;
class Engine;
class Simulator;
struct MigGeometry;
struct GpuOccupancy;

// Instances that could still be created or taken on one MIG GPU now: its idle instances of the
// profile plus the new ones its free slices still allow next to every instance it has (the
// engine takes idle instances and creates new ones, but never destroys an idle one).
int migPlaceable(const MigGeometry& g, const GpuOccupancy& o, int profile);
// The profile of `computeSlices` compute slices without media extensions (the smallest in
// memory when several), or -1: 3 gives the 3g.40gb class, the geometry's total the full GPU.
int migProfileWithCompute(const MigGeometry& g, int computeSlices);

struct MigRoom {
  int threeG = 0;  // 3g-class instances still placeable, summed over MIG GPUs on nodes up
  int sevenG = 0;  // full-GPU (7g) instances still placeable
};
MigRoom migRoom(const ClusterState& s);

// Where one gang's GPUs landed, judged against what the cluster could have offered.
struct GangLocality {
  bool multiGpu = false;     // uses two or more GPUs
  bool multiNode = false;    // uses two or more nodes
  bool fitsDomain = false;   // no more GPUs than the cluster's largest NVLink domain has
  bool fitsLeaf = false;     // no more GPUs than the cluster's largest leaf has
  bool inOneDomain = false;  // every GPU in the same NVLink domain
  bool inOneLeaf = false;    // every node under the same leaf switch
};

class GangLocalityJudge {
 public:
  explicit GangLocalityJudge(const Cluster& c);
  [[nodiscard]] GangLocality judge(const std::vector<GpuId>& gpus) const;

 private:
  const Cluster& cluster_;
  size_t largestDomain_ = 0;
  size_t largestLeaf_ = 0;
};

struct PlacementQuality {
  size_t samples = 0;
  double mig3g = 0, mig7g = 0;  // mean over the samples of MigRoom
  // Gang starts (each start once; a restart after preemption is a new placement).
  size_t domainGangs = 0, inOneDomain = 0;  // multi-GPU gangs that fit the largest domain
  size_t leafGangs = 0, inOneLeaf = 0;      // multi-node gangs that fit the largest leaf
  // Shares in [0, 1]; -1 when no gang qualified (nothing to judge, not a perfect score).
  [[nodiscard]] double domainShare() const;
  [[nodiscard]] double leafShare() const;
};

// Runs `sim` to its end exactly as Simulator::run would, sampling the MIG room every
// config().sampleInterval of simulated time (equal spacing: the mean is time-weighted) and
// judging every gang the engine starts.
Expected<PlacementQuality> runMeasuringPlacement(Simulator& sim);

}  // namespace tessera
