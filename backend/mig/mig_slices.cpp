#include "mig/mig_slices.h"

#include <algorithm>

#include "mig/mig_capacity.h"

namespace tessera {

namespace {

const MigProfile& profileOf(const MigGeometry& g, int p) {
  return g.profiles[static_cast<size_t>(p)];
}

}  // namespace

std::vector<int> migDemandProfiles(const MigGeometry& g, const std::vector<std::string>& names) {
  std::vector<int> demand;
  if (names.empty()) {
    for (const auto& [p, weight] : MigDemand::uniform(g).weights) demand.push_back(p);
    return demand;
  }
  for (const std::string& n : names)
    if (const int p = g.profileIndex(n);
        p >= 0 && std::find(demand.begin(), demand.end(), p) == demand.end())
      demand.push_back(p);
  return demand;
}

std::vector<MigSliceState> migSliceStates(const MigGeometry& g, const MigLayout& layout,
                                          const std::vector<int>& demand) {
  std::vector<MigSliceState> states(static_cast<size_t>(g.memorySlices), MigSliceState::Free);
  // Slices some demanded profile could be placed over, next to the existing instances.
  uint16_t usable = 0;
  for (const MigFit& fit : migWhatFits(g, layout)) {
    if (std::find(demand.begin(), demand.end(), fit.profile) == demand.end()) continue;
    for (int s = 0; s < g.memorySlices; ++s)
      if ((fit.starts >> s) & 1u)
        usable = static_cast<uint16_t>(usable | profileOf(g, fit.profile).maskAt(s));
  }
  for (int s = 0; s < g.memorySlices; ++s)
    if (!((usable >> s) & 1u)) states[static_cast<size_t>(s)] = MigSliceState::Stranded;
  for (const MigInstance& i : layout) {
    if (!i.placed()) continue;
    const int size = profileOf(g, i.profile).memorySlices;
    for (int s = i.start; s < i.start + size && s < g.memorySlices; ++s)
      states[static_cast<size_t>(s)] = i.busy ? MigSliceState::Busy : MigSliceState::Idle;
  }
  return states;
}

}  // namespace tessera
