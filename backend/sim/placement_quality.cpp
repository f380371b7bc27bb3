#include "sim/placement_quality.h"

#include <algorithm>
#include <set>

#include "mig/mig_capacity.h"
#include "scheduler/engine.h"
#include "sim/simulator.h"

namespace tessera {

int migPlaceable(const MigGeometry& g, const GpuOccupancy& o, int profile) {
  int idle = 0;
  for (int i = 0; i < o.layout.size(); ++i)
    if (o.layout[i].profile == profile && o.instanceOwner[static_cast<size_t>(i)] == kNoJob) ++idle;
  return idle + migMaxAdditional(g, MigUsage::of(g, o.layout), profile);
}

int migProfileWithCompute(const MigGeometry& g, int computeSlices) {
  int best = -1;
  for (size_t p = 0; p < g.profiles.size(); ++p) {
    const MigProfile& prof = g.profiles[p];
    if (prof.computeSlices != computeSlices || prof.mediaExtensions) continue;
    if (best < 0 || prof.memorySlices < g.profiles[static_cast<size_t>(best)].memorySlices)
      best = static_cast<int>(p);
  }
  return best;
}

MigRoom migRoom(const ClusterState& s) {
  const Cluster& c = s.cluster();
  MigRoom room;
  for (const Node& n : c.nodes()) {
    if (s.nodeState(n.id) != NodeState::Up) continue;
    const auto& mig = n.gpuModel().mig;
    if (!mig) continue;
    const int threeG = migProfileWithCompute(*mig, 3);
    const int sevenG = migProfileWithCompute(*mig, mig->computeSlices);
    for (int i = 0; i < n.gpuCount(); ++i) {
      const GpuId g = n.firstGpu + static_cast<GpuId>(i);
      if (c.gpu(g).sharing.mode != SharingMode::Mig) continue;
      if (threeG >= 0) room.threeG += migPlaceable(*mig, s.gpu(g), threeG);
      if (sevenG >= 0) room.sevenG += migPlaceable(*mig, s.gpu(g), sevenG);
    }
  }
  return room;
}

GangLocalityJudge::GangLocalityJudge(const Cluster& c) : cluster_(c) {
  for (const NvlinkDomain& d : c.nvlinkDomains())
    largestDomain_ = std::max(largestDomain_, d.gpus.size());
  for (const FabricSwitch& sw : c.switches()) {
    if (sw.tier != SwitchTier::Leaf) continue;
    size_t gpus = 0;
    for (NodeId n : sw.nodes) gpus += static_cast<size_t>(c.nodes()[n].gpuCount());
    largestLeaf_ = std::max(largestLeaf_, gpus);
  }
}

GangLocality GangLocalityJudge::judge(const std::vector<GpuId>& gpus) const {
  const std::set<GpuId> distinct(gpus.begin(), gpus.end());
  std::set<NodeId> nodes;
  std::set<DomainId> domains;
  std::set<SwitchId> leafs;
  for (GpuId g : distinct) {
    const Gpu& gpu = cluster_.gpu(g);
    nodes.insert(gpu.node);
    domains.insert(gpu.nvlinkDomain);
    leafs.insert(cluster_.leafOf(gpu.node));
  }
  GangLocality l;
  l.multiGpu = distinct.size() >= 2;
  l.multiNode = nodes.size() >= 2;
  l.fitsDomain = distinct.size() <= largestDomain_;
  l.fitsLeaf = distinct.size() <= largestLeaf_;
  // A GPU outside every domain (kNone) shares none with anything, even on the same node.
  l.inOneDomain = domains.size() == 1 && *domains.begin() != kNone;
  l.inOneLeaf = leafs.size() == 1 && *leafs.begin() != kNone;
  return l;
}

double PlacementQuality::domainShare() const {
  return domainGangs == 0 ? -1 : double(inOneDomain) / double(domainGangs);
}

double PlacementQuality::leafShare() const {
  return leafGangs == 0 ? -1 : double(inOneLeaf) / double(leafGangs);
}

namespace {

class QualityRecorder {
 public:
  explicit QualityRecorder(const Cluster& c) : judge_(c) {}

  void sampleMig(const ClusterState& s) {
    const MigRoom room = migRoom(s);
    q_.mig3g += room.threeG;
    q_.mig7g += room.sevenG;
    ++q_.samples;
  }

  // Judges the gangs started since the engine's event `from`; returns where to look next time.
  size_t judgeStarts(const Engine& engine, size_t from) {
    const auto& events = engine.events();
    for (size_t i = from; i < events.size(); ++i) {
      if (events[i].kind != EventKind::Started) continue;
      const JobRecord* j = engine.job(events[i].job);
      if (j && j->placement) judgeGang(*j->placement);
    }
    return events.size();
  }

  [[nodiscard]] PlacementQuality result() const {
    PlacementQuality q = q_;
    if (q.samples > 0) {
      q.mig3g /= double(q.samples);
      q.mig7g /= double(q.samples);
    }
    return q;
  }

 private:
  void judgeGang(const GangPlacement& p) {
    std::vector<GpuId> gpus;
    for (const TaskAssignment& t : p.tasks) gpus.insert(gpus.end(), t.gpus.begin(), t.gpus.end());
    const GangLocality l = judge_.judge(gpus);
    if (l.multiGpu && l.fitsDomain) {
      ++q_.domainGangs;
      q_.inOneDomain += l.inOneDomain;
    }
    if (l.multiNode && l.fitsLeaf) {
      ++q_.leafGangs;
      q_.inOneLeaf += l.inOneLeaf;
    }
  }

  GangLocalityJudge judge_;
  PlacementQuality q_;
};

}  // namespace

Expected<PlacementQuality> runMeasuringPlacement(Simulator& sim) {
  QualityRecorder recorder(sim.engine().cluster());
  const Seconds step = std::max<Seconds>(1, sim.config().sampleInterval);
  Seconds nextSample = sim.now();
  size_t eventsJudged = sim.engine().events().size();
  while (!sim.finished()) {
    // The state between two events holds until the later one: samples before it see it.
    const Seconds next = *sim.nextEventTime();
    for (; nextSample < next; nextSample += step) recorder.sampleMig(sim.engine().state());
    TESSERA_CHECK(sim.runUntil(next));
    eventsJudged = recorder.judgeStarts(sim.engine(), eventsJudged);
  }
  TESSERA_CHECK(sim.run());  // nothing left to process; moves the clock to config().until if set
  return recorder.result();
}

}  // namespace tessera
