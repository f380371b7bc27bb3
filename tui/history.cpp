#include "history.h"

namespace tessera::tui {

namespace {

// What `share` of a GPU adds: allocated, and busy and SM-active in proportion.
void addShare(UtilPoint& p, const GpuView& g, double share) {
  p.allocated += share;
  p.busy += share * g.util.value_or(0);
  p.smActive += share * g.smActive.value_or(0);
}

UtilPoint divided(UtilPoint p, double gpus) {
  if (gpus > 0) p.allocated /= gpus, p.busy /= gpus, p.smActive /= gpus;
  return p;
}

template <typename T>
void record(std::deque<T>& h, T v) {
  h.push_back(v);
  while (h.size() > Data::kHistory) h.pop_front();
}

}  // namespace

UtilPoint clusterPoint(const ClusterSnapshot& s) {
  UtilPoint p;
  double gpus = 0;
  for (const NodeView& n : s.nodes)
    for (const GpuView& g : n.gpus) gpus += 1, addShare(p, g, g.allocated);
  return divided(p, gpus);
}

std::map<std::string, UtilPoint> poolPoints(const ClusterSnapshot& s) {
  std::map<std::string, std::pair<UtilPoint, double>> sums;  // point, GPUs
  for (const NodeView& n : s.nodes)
    for (const GpuView& g : n.gpus) {
      auto& [p, gpus] = sums[n.pool];
      gpus += 1;
      addShare(p, g, g.allocated);
    }
  std::map<std::string, UtilPoint> out;
  for (const auto& [pool, sum] : sums) out[pool] = divided(sum.first, sum.second);
  return out;
}

std::map<std::string, UtilPoint> teamPoints(const ClusterSnapshot& s) {
  std::map<std::string, UtilPoint> out;
  for (const TeamView& t : s.teams) out[t.name];
  for (const NodeView& n : s.nodes)
    for (const GpuView& g : n.gpus)
      for (const GpuView::Occupant& o : g.occupants) addShare(out[o.team], g, o.milli / 1000.0);
  return out;
}

void recordHistory(Data& d) {
  record(d.history, clusterPoint(d.snapshot));
  for (const auto& [pool, p] : poolPoints(d.snapshot)) record(d.poolHistory[pool], p);
  for (const auto& [team, p] : teamPoints(d.snapshot)) record(d.teamHistory[team], p);
}

}  // namespace tessera::tui
