#include "mig/mig_capacity.h"

#include <bit>
#include <cstdint>

namespace tessera {

namespace {
const MigProfile& prof(const MigGeometry& g, int p) {
  return g.profiles[static_cast<size_t>(p)];
}
}  // namespace

MigUsage MigUsage::of(const MigGeometry& g, const MigLayout& layout) {
  MigUsage u;
  for (const auto& i : layout)
    if (i.placed()) u.add(g, i.profile, i.start);
  return u;
}

bool MigUsage::canAdd(const MigGeometry& g, int p, int start) const {
  const MigProfile& pr = prof(g, p);
  if (!pr.canStartAt(start)) return false;
  if (used_ & pr.maskAt(start)) return false;
  if (counts_[static_cast<size_t>(p)] + 1 > pr.maxCount) return false;
  if (computeSlices_ + pr.computeSlices > g.computeSlices) return false;
  MigEngines after = engines_;
  after += pr.engines;
  return after.within(g.totals);
}

void MigUsage::add(const MigGeometry& g, int p, int start) {
  const MigProfile& pr = prof(g, p);
  used_ = static_cast<uint16_t>(used_ | pr.maskAt(start));
  ++counts_[static_cast<size_t>(p)];
  computeSlices_ += pr.computeSlices;
  engines_ += pr.engines;
}

void MigUsage::remove(const MigGeometry& g, int p, int start) {
  const MigProfile& pr = prof(g, p);
  used_ = static_cast<uint16_t>(used_ & ~pr.maskAt(start));
  --counts_[static_cast<size_t>(p)];
  computeSlices_ -= pr.computeSlices;
  engines_ -= pr.engines;
}

namespace {

uint16_t startsThatFit(const MigGeometry& g, const MigUsage& u, int p) {
  uint16_t starts = 0;
  for (int s = 0; s < g.memorySlices; ++s)
    if (u.canAdd(g, p, s)) starts = static_cast<uint16_t>(starts | (1u << s));
  return starts;
}

bool anythingFits(const MigGeometry& g, const MigUsage& u) {
  for (int p = 0; p < static_cast<int>(g.profiles.size()); ++p)
    if (startsThatFit(g, u, p)) return true;
  return false;
}

struct Enumerator {
  const MigGeometry& g;
  bool maximalOnly;
  const std::function<void(const MigLayout&)>& visit;
  MigUsage usage;
  MigLayout layout;
  size_t visited = 0;
  uint64_t stepsLeft = UINT64_MAX;

  void run(int slice) {
    if (stepsLeft == 0) return;
    --stepsLeft;
    while (slice < g.memorySlices && (usage.usedMask() >> slice) & 1u) ++slice;
    if (slice >= g.memorySlices) {
      if (!maximalOnly || !anythingFits(g, usage)) {
        ++visited;
        visit(layout);
      }
      return;
    }
    run(slice + 1);  // leave this slice free
    for (int p = 0; p < static_cast<int>(g.profiles.size()); ++p) {
      if (!usage.canAdd(g, p, slice)) continue;
      MigInstance inst;
      inst.profile = static_cast<int8_t>(p);
      inst.start = static_cast<int8_t>(slice);
      usage.add(g, p, slice);
      layout.add(inst);
      run(slice + prof(g, p).memorySlices);
      layout.removeAt(layout.size() - 1);
      usage.remove(g, p, slice);
    }
  }
};

}  // namespace

std::vector<MigFit> migWhatFits(const MigGeometry& g, const MigLayout& layout) {
  const MigUsage u = MigUsage::of(g, layout);
  std::vector<MigFit> fits;
  for (int p = 0; p < static_cast<int>(g.profiles.size()); ++p)
    if (uint16_t s = startsThatFit(g, u, p)) fits.push_back({p, s});
  return fits;
}

int migMaxAdditional(const MigGeometry& g, const MigUsage& usage, int p) {
  MigUsage u = usage;
  int added = 0;
  for (int s = 0; s < g.memorySlices; ++s) {
    if (!u.canAdd(g, p, s)) continue;
    u.add(g, p, s);
    ++added;
  }
  return added;
}

size_t forEachMigLayout(const MigGeometry& g, bool maximalOnly,
                        const std::function<void(const MigLayout&)>& visit) {
  bool complete = true;
  return forEachMigLayoutBounded(g, maximalOnly, UINT64_MAX, complete, visit);
}

size_t forEachMigLayoutBounded(const MigGeometry& g, bool maximalOnly, uint64_t maxSteps,
                               bool& complete, const std::function<void(const MigLayout&)>& visit) {
  Enumerator e{g, maximalOnly, visit, {}, {}, 0, maxSteps};
  e.run(0);
  complete = e.stepsLeft > 0;
  return e.visited;
}

MigDemand MigDemand::uniform(const MigGeometry& g) {
  MigDemand d;
  for (int p = 0; p < static_cast<int>(g.profiles.size()); ++p)
    if (!prof(g, p).mediaExtensions) d.weights.emplace_back(p, 1.0);
  return d;
}

MigFragmentation migFragmentation(const MigGeometry& g, const MigLayout& layout,
                                  const MigDemand& demand) {
  const MigUsage u = MigUsage::of(g, layout);
  MigFragmentation f;
  f.freeSlices = g.memorySlices - std::popcount(static_cast<unsigned>(u.usedMask()));
  double totalWeight = 0;
  double stranded = 0;
  for (auto [p, w] : demand.weights) {
    const int usable = migMaxAdditional(g, u, p) * prof(g, p).memorySlices;
    stranded += w * (f.freeSlices - usable);
    totalWeight += w;
  }
  if (totalWeight > 0) f.strandedSlices = stranded / totalWeight;
  f.score = f.strandedSlices / g.memorySlices;
  return f;
}

std::optional<MigNewInstance> migBestNewInstance(const MigGeometry& g, const MigLayout& layout,
                                                 int p) {
  const MigUsage usage = MigUsage::of(g, layout);
  const MigDemand demand = MigDemand::uniform(g);
  std::optional<MigNewInstance> best;
  for (int s = 0; s < g.memorySlices; ++s) {
    if (!usage.canAdd(g, p, s)) continue;
    MigLayout next = layout;
    MigInstance inst;
    inst.profile = static_cast<int8_t>(p);
    inst.start = static_cast<int8_t>(s);
    next.add(inst);
    const double score = migFragmentation(g, next, demand).score;
    if (!best || score < best->fragmentation - 1e-12) best = MigNewInstance{s, score};
  }
  return best;
}

}  // namespace tessera
