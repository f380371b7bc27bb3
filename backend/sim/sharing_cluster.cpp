// The sharing study's clusters: a prefix of the nodes, the last GPUs shared in the mode's way,
// MIG layouts from the repartition planner (rules in sharing_variant.h).
#include <algorithm>
#include <cmath>
#include <map>

#include "mig/mig_plan.h"
#include "sim/sharing_variant.h"

namespace tessera {
namespace {

// The first `count` nodes of `full`, every GPU exclusive, with the fabric and NVLink domains
// they belong to.
Expected<std::shared_ptr<Cluster>> prefixOf(const Cluster& full, size_t count) {
  auto c = std::make_shared<Cluster>();
  c->name = full.name;
  for (const FabricSwitch& s : full.switches()) {
    if (s.parent != kNone && s.parent >= s.id)
      return Error{"cluster '" + full.name + "': a leaf is listed before its spine", {}};
    c->addSwitch(s.name, s.tier, s.parent);
  }
  for (size_t i = 0; i < count && i < full.nodes().size(); ++i) c->addNode(full.nodes()[i]);
  const auto gpus = static_cast<GpuId>(c->gpus().size());
  for (const NvlinkDomain& d : full.nvlinkDomains()) {
    std::vector<GpuId> kept;
    for (GpuId g : d.gpus)
      if (g < gpus) kept.push_back(g);
    if (!kept.empty()) c->addNvlinkDomain(d.name, d.kind, kept);
  }
  return c;
}

bool canShare(const Gpu& g, const Cluster& c, StudyMode mode, const GpuModel* migModel) {
  const GpuModel& m = c.modelOf(g.id);
  switch (mode) {
    case StudyMode::Mig:
      return &m == migModel;
    case StudyMode::Mps:
      return m.mpsMaxClients > 0;
    case StudyMode::TimeSlicing:
      return true;
    case StudyMode::Whole:
      break;
  }
  return false;
}

// Hands out MIG instances GPU by GPU in proportion to the demand per profile; the planner says
// whether a GPU's layout so far plus one more instance is valid. Memoized: layouts repeat.
class LayoutPacker {
 public:
  LayoutPacker(const GpuModel& model, const std::vector<double>& demand, int gpus)
      : model_(model), target_(demand.size(), 0.0), placed_(demand.size(), 0) {
    double total = 0;
    for (double d : demand) total += d;
    for (size_t p = 0; p < demand.size(); ++p) {
      const int slices = model.mig->profiles[p].memorySlices;
      // Demand is in GPU shares (memory slices / all slices): instances over all GPUs.
      if (total > 0) target_[p] = demand[p] / total * gpus * model.mig->memorySlices / slices;
    }
    gpus_ = gpus;
  }

  MigLayout next(int gpuIndex) {
    std::vector<int> chosen;
    for (;;) {
      int best = -1;
      double bestDeficit = 0;
      for (size_t p = 0; p < target_.size(); ++p) {
        if (target_[p] <= 0) continue;
        const double deficit = target_[p] * (gpuIndex + 1) / gpus_ - placed_[p];
        if (best >= 0 && deficit <= bestDeficit) continue;
        chosen.push_back(static_cast<int>(p));
        if (fits(chosen)) best = static_cast<int>(p), bestDeficit = deficit;
        chosen.pop_back();
      }
      if (best < 0) break;
      chosen.push_back(best);
      ++placed_[static_cast<size_t>(best)];
    }
    return layoutOf(chosen);
  }

 private:
  MigLayout desired(std::vector<int> profiles) const {
    std::sort(profiles.begin(), profiles.end());
    MigLayout l;
    for (int p : profiles) {
      MigInstance inst;
      inst.profile = static_cast<int8_t>(p);
      l.add(inst);
    }
    return l;
  }
  bool fits(std::vector<int> profiles) {
    std::sort(profiles.begin(), profiles.end());
    const auto [it, fresh] = fits_.try_emplace(profiles, false);
    if (fresh)
      it->second = profiles.size() <= size_t{kMaxMemorySlices} &&
                   bool(planMigRepartition(model_, MigLayout{}, desired(profiles)));
    return it->second;
  }
  MigLayout layoutOf(const std::vector<int>& profiles) const {
    if (profiles.empty()) return MigLayout{};
    auto plan = planMigRepartition(model_, MigLayout{}, desired(profiles));
    return plan ? plan->target : MigLayout{};
  }

  const GpuModel& model_;
  std::vector<double> target_;
  std::vector<int> placed_;
  int gpus_ = 1;
  std::map<std::vector<int>, bool> fits_;
};

// "3g.40gb+4x1g.10gb": the instances by profile, largest first, without their starts.
std::string layoutText(const GpuModel& model, const MigLayout& layout) {
  std::map<std::pair<int, std::string>, int> count;
  for (const MigInstance& i : layout) {
    const MigProfile& p = model.mig->profiles[static_cast<size_t>(i.profile)];
    ++count[{-p.memorySlices, p.name}];
  }
  std::string out;
  for (const auto& [key, n] : count)
    out += (out.empty() ? "" : "+") + (n > 1 ? std::to_string(n) + "x" : "") + key.second;
  return out.empty() ? "-" : out;
}

std::string layoutSummary(const std::map<std::string, int>& counts) {
  std::string out;
  for (const auto& [layout, n] : counts)
    out += (out.empty() ? "" : ", ") + std::to_string(n) + " GPUs " + layout;
  return out;
}

}  // namespace

Expected<ModeCluster> clusterForMode(const Cluster& full, size_t nodes, StudyMode mode,
                                     const ModeWorkload& work, int slots) {
  TESSERA_TRY(c, prefixOf(full, nodes));
  ModeCluster out;
  out.gpus = static_cast<int>(c->gpus().size());
  std::vector<GpuId> candidates;  // last GPUs first
  for (auto g = c->gpus().rbegin(); g != c->gpus().rend(); ++g)
    if (canShare(*g, *c, mode, work.migModel)) candidates.push_back(g->id);
  int shared = 0;
  if (work.sharedFraction > 0) {
    shared = static_cast<int>(std::ceil(work.sharedFraction * out.gpus - 1e-9));
    // Whole-GPU work keeps room for its widest task (the first node's GPUs stay exclusive).
    shared = std::min(shared, out.gpus - work.widestWholeTask);
    shared = std::clamp(shared, 0, static_cast<int>(candidates.size()));
  }
  std::optional<LayoutPacker> packer;
  if (mode == StudyMode::Mig && shared > 0)
    packer.emplace(*work.migModel, work.profileDemand, shared);
  std::map<std::string, int> layouts;
  for (int i = 0; i < shared; ++i) {
    GpuSharing& s = c->mutableGpu(candidates[static_cast<size_t>(i)]).sharing;
    switch (mode) {
      case StudyMode::TimeSlicing:
        s.mode = SharingMode::TimeSliced;
        s.replicas = slots;
        break;
      case StudyMode::Mps:
        s.mode = SharingMode::Mps;
        s.mps.enabled = true;
        break;
      case StudyMode::Mig:
        s.mode = SharingMode::Mig;
        s.mig = packer->next(i);
        ++layouts[layoutText(*work.migModel, s.mig)];
        break;
      case StudyMode::Whole:
        break;
    }
  }
  out.shared = shared;
  out.layouts = layoutSummary(layouts);
  out.cluster = std::move(c);
  return out;
}

}  // namespace tessera
