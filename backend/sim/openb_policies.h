#pragma once
// Placement policies of the openb experiment behind one small interface, and the cluster state
// they read. Internal to the simulator library (the experiment drives them; tests use them for
// the GPU-choice cases).
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "sim/openb_scores.h"

namespace tessera::openb {

using Rng = std::mt19937_64;

// Uniform in [0, n) by rejection, so a seed gives the same sequence on every standard library
// (std::uniform_int_distribution's algorithm is implementation-defined).
uint64_t uniformBelow(Rng& rng, uint64_t n);

// The mutable state of one run: the nodes, and what only the filter (pod count) or GpuClustering
// (tags) needs.
struct ClusterState {
  std::vector<NodeView> nodes;
  std::vector<int32_t> podCount;
  std::vector<GpuTags> tags;
  // Tie-break rank per node, lower wins (the reference's random "%04d-" name prefix); empty means
  // uniform among the tied nodes.
  std::vector<uint32_t> tieRank;
  // The engine's rule (PolicyScorer): among the tied nodes, fewest fully free GPUs first, then
  // tieRank (the engine's candidate order). Only with a tieRank.
  bool fewestFreeFirst = false;
};

// What a policy may know before the first pod: the reference FGD takes its target mix from the
// whole untuned trace (an oracle). Only fgd and the oracle ablations read it; tessera never does.
struct PolicyContext {
  std::vector<TypicalPod> traceTypicalPods;  // the reference's oracle mix
};

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  // Called for every arriving pod before it is placed, so online learners see it.
  virtual void observe(const PodDemand& /*pod*/) {}
  // One node of `feasible` (never empty) for `pod`.
  virtual int chooseNode(const ClusterState& c, const PodDemand& pod, std::span<const int> feasible,
                         Rng& rng) = 0;
  // The GPU of node `node` that takes a sharing pod (default: the reference's "best").
  virtual int chooseSharedGpu(const ClusterState& c, int node, const PodDemand& pod, Rng& rng);
  // Told after a pod landed on `node`, so per-node caches can refresh.
  virtual void placed(const ClusterState& /*c*/, int /*node*/) {}
};

// The registry: names in a fixed order (the table's row order), and the ablation variants that
// the experiment also accepts (docs/openb-experiment.md).
const std::vector<std::string>& policyNames();
const std::vector<std::string>& ablationPolicyNames();
// nullptr for an unknown name. Besides the registry's names, "tessera/c<0|1>g<0|1>s<scale>m<pct>"
// is tessera with other parameters (cpuReach, gpuReach, sigmoid scale, online mix coverage %), with
// an optional "r<pct>" (the reach measure's weight against FGD's) and "e<0|1>" (a sharing pod's GPU
// among tied scores by the lowest F after the move): the cross-validation's grid
// (docs/openb-experiment.md).
std::unique_ptr<PlacementPolicy> makePolicy(const std::string& name, const PolicyContext& ctx);
// tessera's online mix coverage, chosen with its measure (frag::kTesseraMeasure) by
// cross-validation across trace families.
inline constexpr double kTesseraMixCoverage = 1.0;
struct TesseraVariant {
  frag::Measure measure;
  double mixCoverage = 0.95;
};
std::optional<TesseraVariant> tesseraVariant(const std::string& name);

// Uniform choice among the entries of `candidates` whose score equals the maximum: the
// kube-scheduler's selectHost reservoir sampling has exactly this distribution.
// Scores are doubles so that exact (untruncated) scores and the reference's integers share it.
int pickUniformArgmax(std::span<const int> candidates, std::span<const double> scores, Rng& rng);
// The experiment's tie-break: the lowest c.tieRank among the best (uniform when it is empty);
// with c.fewestFreeFirst, the fewest fully free GPUs first.
int pickArgmax(const ClusterState& c, std::span<const int> candidates,
               std::span<const double> scores, Rng& rng);

}  // namespace tessera::openb
