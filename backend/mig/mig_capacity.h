#pragma once
// What a GPU's MIG layout still has room for: the running totals the checks of mig_validate
// constrain, kept incrementally so enumeration, "what still fits" and planning share one rule.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "topology/mig_layout.h"

namespace tessera {

class MigUsage {
 public:
  // Usage of the placed instances of `layout` (assumed valid).
  static MigUsage of(const MigGeometry& g, const MigLayout& layout);

  // Would one more instance of profile `p` at `start` keep the layout valid?
  [[nodiscard]] bool canAdd(const MigGeometry& g, int p, int start) const;
  void add(const MigGeometry& g, int p, int start);
  void remove(const MigGeometry& g, int p, int start);
  [[nodiscard]] uint16_t usedMask() const { return used_; }
  [[nodiscard]] int count(int p) const { return counts_[static_cast<size_t>(p)]; }

 private:
  uint16_t used_ = 0;
  std::array<uint8_t, kMaxMigProfiles> counts_{};
  MigEngines engines_;
  int computeSlices_ = 0;
};

struct MigFit {
  int profile = -1;
  uint16_t starts = 0;  // bit s set = an instance may be added at slice s
};

// Every profile that still fits next to the placed instances of `layout`, with its starts.
std::vector<MigFit> migWhatFits(const MigGeometry& g, const MigLayout& layout);

// Most instances of profile `p` that can still be added (exact: equal-size intervals, so the
// earliest-start greedy choice is optimal, capped by the count and engine budgets).
int migMaxAdditional(const MigGeometry& g, const MigUsage& usage, int p);

// Visits every valid layout of the model once (instances in start order, default compute
// instances). The empty layout is included. With `maximalOnly`, only layouts to which no
// further instance can be added. Returns the number of layouts visited.
size_t forEachMigLayout(const MigGeometry& g, bool maximalOnly,
                        const std::function<void(const MigLayout&)>& visit);

// The same with a bound on the search: stops after `maxSteps` placement attempts (real GPUs need
// a few thousand; a user catalog with many slices could need billions). `complete` says whether
// every layout was visited.
size_t forEachMigLayoutBounded(const MigGeometry& g, bool maximalOnly, uint64_t maxSteps,
                               bool& complete, const std::function<void(const MigLayout&)>& visit);

struct MigNewInstance {
  int start = -1;
  double fragmentation = 0;  // the GPU's fragmentation score once the instance exists
};
// Demand used by the fragmentation measure: arriving MIG requests by profile, with weights.
struct MigDemand {
  std::vector<std::pair<int, double>> weights;  // (profile index, weight > 0)
  // Equal weight on every profile without media extensions: the default when none is known.
  static MigDemand uniform(const MigGeometry& g);
};

// MIG fit: where a new instance of profile `p` should go next to `layout`: the free start that
// leaves the least fragmentation under the uniform demand (ties: lowest start); nullopt when it
// fits nowhere. The scheduler uses the score to choose between GPUs as well.
std::optional<MigNewInstance> migBestNewInstance(const MigGeometry& g, const MigLayout& layout,
                                                 int p);

// MIG fragmentation of one GPU (docs/mig-layout-syntax.md, "Fragmentation"):
// for each demanded profile p, the free memory slices that cannot host any further instance of p
// (free - maxAdditional(p) * size(p)); `strandedSlices` is their demand-weighted mean and
// `score` = strandedSlices / memory slices of the GPU (0 = every free slice usable, 1 = none).
struct MigFragmentation {
  int freeSlices = 0;
  double strandedSlices = 0;
  double score = 0;
};
MigFragmentation migFragmentation(const MigGeometry& g, const MigLayout& layout,
                                  const MigDemand& demand);

}  // namespace tessera
