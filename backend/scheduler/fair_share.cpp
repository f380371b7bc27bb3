#include "scheduler/fair_share.h"

#include <algorithm>
#include <cmath>

namespace tessera {

FairShare::FairShare(const QuotaBook& book) {
  const auto& teams = book.teams();
  parents_.resize(teams.size());
  share_.assign(teams.size(), 0);
  usage_.assign(teams.size(), 0);
  // Normalized shares: weight over the siblings' weights, times the parent's share.
  std::vector<double> siblingWeight(teams.size() + 1, 0);
  for (size_t i = 0; i < teams.size(); ++i) {
    parents_[i] = book.parentOf(static_cast<int>(i));
    const size_t slot = parents_[i] < 0 ? teams.size() : static_cast<size_t>(parents_[i]);
    siblingWeight[slot] += teams[i].weight;
  }
  // Parents come before children only by luck of file order; resolve by walking up.
  for (size_t i = 0; i < teams.size(); ++i) {
    double s = 1;
    for (int a = static_cast<int>(i); a >= 0; a = parents_[static_cast<size_t>(a)]) {
      const int p = parents_[static_cast<size_t>(a)];
      const size_t slot = p < 0 ? teams.size() : static_cast<size_t>(p);
      s *= teams[static_cast<size_t>(a)].weight / siblingWeight[slot];
    }
    share_[i] = s;
  }
}

void FairShare::addUsage(int team, double gpuSeconds) {
  if (team < 0 || gpuSeconds <= 0) return;
  for (int a = team; a >= 0; a = parents_[static_cast<size_t>(a)])
    usage_[static_cast<size_t>(a)] += gpuSeconds;
  total_ += gpuSeconds;
}

void FairShare::decayTo(Seconds now, Seconds halfLife) {
  if (now <= decayedAt_ || halfLife <= 0) {
    decayedAt_ = std::max(decayedAt_, now);
    return;
  }
  const double f = std::exp2(-double(now - decayedAt_) / double(halfLife));
  for (double& u : usage_) u *= f;
  total_ *= f;
  decayedAt_ = now;
}

void FairShare::restore(const std::vector<double>& usage, Seconds now) {
  usage_ = usage;
  usage_.resize(parents_.size(), 0.0);
  total_ = 0;
  for (size_t t = 0; t < usage_.size(); ++t)
    if (parents_[t] < 0) total_ += usage_[t];
  decayedAt_ = now;
}

double FairShare::usedShare(int team) const {
  if (team < 0 || total_ <= 0) return 0;
  // A department's usage includes its teams'; compare a team against its siblings' total.
  const int p = parents_[static_cast<size_t>(team)];
  const double base = p < 0 ? total_ : usage_[static_cast<size_t>(p)];
  const double parentShare = p < 0 ? 1.0 : usedShare(p);
  return base <= 0 ? 0 : usage_[static_cast<size_t>(team)] / base * parentShare;
}

std::vector<double> FairShare::factors() const {
  std::vector<double> f(usage_.size(), 1.0);
  for (size_t i = 0; i < usage_.size(); ++i) {
    const double share = share_[i];
    f[i] = share > 0 ? std::exp2(-usedShare(static_cast<int>(i)) / share) : 0.0;
  }
  return f;
}

std::vector<double> dominantShares(const ResourceUse& capacity,
                                   const std::vector<ResourceUse>& perTeam, const QuotaBook& book) {
  std::vector<double> out(perTeam.size(), 0);
  auto part = [](double used, double total) { return total > 0 ? used / total : 0.0; };
  for (size_t i = 0; i < perTeam.size(); ++i) {
    const ResourceUse& u = perTeam[i];
    const double dominant = std::max({part(u.gpus, capacity.gpus), part(u.cpus, capacity.cpus),
                                      part(u.memoryMiB, capacity.memoryMiB)});
    out[i] = dominant / book.teams()[i].weight;
  }
  return out;
}

}  // namespace tessera
