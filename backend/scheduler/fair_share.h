#pragma once
// Fair share over the team tree: decayed GPU usage (Slurm's PriorityDecayHalfLife) against the
// share each team deserves from the weights of its tree (weight / siblings' weights x parent's
// share), giving a factor 2^(-usage/share) in (0, 1] (Slurm's classic fair-share factor); and the
// DRF dominant share of each team across GPU, CPU and memory in use now.
#include <vector>

#include "scheduler/quota.h"

namespace tessera {

class FairShare {
 public:
  FairShare() = default;
  explicit FairShare(const QuotaBook& book);

  // Adds `gpuSeconds` of use to `team` (and its ancestors) at `now`, decaying older usage first.
  void addUsage(int team, double gpuSeconds);
  void decayTo(Seconds now, Seconds halfLife);
  // Replaces every team's usage (as read back from a snapshot taken at `now`). `usage` holds each
  // team's total including its sub-teams, as usage() reports it.
  void restore(const std::vector<double>& usage, Seconds now);
  [[nodiscard]] double usage(int team) const { return usage_[static_cast<size_t>(team)]; }
  [[nodiscard]] double deservedShare(int team) const { return share_[static_cast<size_t>(team)]; }
  // Usage of the team as a fraction of all usage (0 when nothing was used yet).
  [[nodiscard]] double usedShare(int team) const;
  [[nodiscard]] std::vector<double> factors() const;

 private:
  std::vector<int> parents_;
  std::vector<double> share_;
  std::vector<double> usage_;
  double total_ = 0;
  Seconds decayedAt_ = 0;
};

struct ResourceUse {
  double gpus = 0;
  double cpus = 0;
  double memoryMiB = 0;
};

// DRF: each team's dominant share now, max(GPU, CPU, memory in use / cluster capacity), divided
// by its weight (a team of weight 2 may hold twice as much before it ranks behind).
std::vector<double> dominantShares(const ResourceUse& capacity,
                                   const std::vector<ResourceUse>& perTeam, const QuotaBook& book);

}  // namespace tessera
