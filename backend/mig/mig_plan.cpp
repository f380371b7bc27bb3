#include "mig/mig_plan.h"

#include <algorithm>
#include <map>

#include "core/engine_text.h"
#include "core/strings.h"
#include "mig/mig_capacity.h"
#include "mig/mig_validate.h"

namespace tessera {

namespace {

// Upper bound on placement attempts: the search is exact for real GPUs (8 slices, a few thousand
// attempts at most), and the bound keeps a hostile user catalog from hanging the caller.
constexpr long kMaxSearchSteps = 2'000'000;

const MigProfile& prof(const MigGeometry& g, const MigInstance& i) {
  return g.profiles[static_cast<size_t>(i.profile)];
}

// One desired instance being placed; `busy` >= 0 pins it to that busy current instance.
struct Slot {
  MigInstance want;
  int busy = -1;
};

bool interchangeable(const Slot& a, const Slot& b) {
  return a.busy < 0 && b.busy < 0 && !a.want.placed() && !b.want.placed() &&
         a.want.sameShape(b.want);
}

struct Best {
  bool found = false;
  int kept = -1;
  double fragmentation = 0;
  std::vector<MigInstance> placed;
  std::vector<int> reuse;  // per placed instance: index into current, or -1 for a new one
};

class Search {
 public:
  Search(const MigGeometry& g, const MigLayout& current, std::vector<Slot> slots)
      : g_(g),
        current_(current),
        slots_(std::move(slots)),
        taken_(static_cast<size_t>(current.size()), false) {}

  // Returns false when the step budget ran out before the search finished.
  bool run() {
    place(0);
    return steps_ <= kMaxSearchSteps;
  }
  [[nodiscard]] const Best& best() const { return best_; }
  [[nodiscard]] const std::vector<Slot>& slots() const { return slots_; }
  // The deepest partial assignment reached, for explaining a failure.
  [[nodiscard]] size_t deepest() const { return deepest_; }
  [[nodiscard]] const std::vector<MigInstance>& deepestPlaced() const { return deepestPlaced_; }

 private:
  const MigGeometry& g_;
  const MigLayout& current_;
  std::vector<Slot> slots_;
  std::vector<bool> taken_;
  MigUsage usage_;
  std::vector<MigInstance> placed_;
  std::vector<int> reuse_;
  int kept_ = 0;
  long steps_ = 0;
  Best best_;
  size_t deepest_ = 0;
  std::vector<MigInstance> deepestPlaced_;

  void place(size_t k) {
    if (++steps_ > kMaxSearchSteps) return;
    if (k > deepest_) {
      deepest_ = k;
      deepestPlaced_ = placed_;
    }
    if (k == slots_.size()) {
      consider();
      return;
    }
    const Slot& slot = slots_[k];
    if (slot.busy >= 0) {
      tryAt(k, current_[slot.busy].start, slot.busy);
      return;
    }
    // Interchangeable instances are placed in increasing start order: each set is tried once.
    const int from = k > 0 && interchangeable(slots_[k - 1], slot) ? placed_.back().start + 1 : 0;
    for (int s = from; s < g_.memorySlices; ++s) {
      if (slot.want.placed() && slot.want.start != s) continue;
      if (!usage_.canAdd(g_, slot.want.profile, s)) continue;
      tryAt(k, s, idleMatch(slot.want, s));
    }
  }

  // An idle current instance of the same shape at `start` that can be kept instead of recreated.
  int idleMatch(const MigInstance& want, int start) const {
    for (int c = 0; c < current_.size(); ++c)
      if (!taken_[static_cast<size_t>(c)] && !current_[c].busy && current_[c].sameShape(want) &&
          current_[c].start == start)
        return c;
    return -1;
  }

  void tryAt(size_t k, int start, int match) {
    MigInstance inst = slots_[k].want;
    inst.start = static_cast<int8_t>(start);
    inst.busy = match >= 0 && current_[match].busy;
    usage_.add(g_, inst.profile, start);
    placed_.push_back(inst);
    reuse_.push_back(match);
    if (match >= 0) {
      taken_[static_cast<size_t>(match)] = true;
      ++kept_;
    }
    place(k + 1);
    if (match >= 0) {
      taken_[static_cast<size_t>(match)] = false;
      --kept_;
    }
    reuse_.pop_back();
    placed_.pop_back();
    usage_.remove(g_, inst.profile, start);
  }

  void consider() {
    MigLayout layout;
    for (const auto& i : placed_) layout.add(i);
    const double frag = migFragmentation(g_, layout, MigDemand::uniform(g_)).score;
    if (!best_.found || kept_ > best_.kept ||
        (kept_ == best_.kept && frag < best_.fragmentation - 1e-12))
      best_ = {true, kept_, frag, placed_, reuse_};
  }
};

// Reasons the desired set is impossible regardless of placement (counts, engines, slices).
Text setLevelProblem(const GpuModel& model, const MigLayout& desired) {
  const MigGeometry& g = *model.mig;
  std::map<int, int> counts;
  int memory = 0, compute = 0;
  MigEngines engines;
  for (const auto& i : desired) {
    ++counts[i.profile];
    memory += prof(g, i).memorySlices;
    compute += prof(g, i).computeSlices;
    engines += prof(g, i).engines;
  }
  for (auto [p, n] : counts)
    if (n > g.profiles[static_cast<size_t>(p)].maxCount)
      return phrase(text::kMigOverMax, n, g.profiles[static_cast<size_t>(p)].name,
                    g.profiles[static_cast<size_t>(p)].maxCount);
  if (memory > g.memorySlices)
    return phrase(text::kMigNeedsMemory, memory, model.id, g.memorySlices);
  if (compute > g.computeSlices)
    return phrase(text::kMigNeedsCompute, compute, model.id, g.computeSlices);
  if (!engines.within(g.totals))
    return phrase(text::kMigNeedsEngines, model.id, engines.ce, g.totals.ce, engines.dec,
                  g.totals.dec, engines.jpeg, g.totals.jpeg, engines.ofa, g.totals.ofa);
  return {};
}

Text explainPlacementFailure(const GpuModel& model, const Search& s) {
  const MigGeometry& g = *model.mig;
  const Slot& stuck = s.slots()[s.deepest()];
  const MigProfile& p = prof(g, stuck.want);
  if (stuck.want.placed() && !p.canStartAt(stuck.want.start))
    return phrase(text::kMigStartFailed, formatMigInstance(model, stuck.want), stuck.want.start,
                  p.name, formatStarts(g, p.startMask));
  std::vector<Text> blockers;
  for (int st = 0; st < g.memorySlices; ++st) {
    if (!p.canStartAt(st) || (stuck.want.placed() && st != stuck.want.start)) continue;
    std::vector<Text> in;
    for (const auto& other : s.deepestPlaced()) {
      if (!(prof(g, other).maskAt(other.start) & p.maskAt(st))) continue;
      Text name = literal(formatMigInstance(model, other));
      in.push_back(other.busy ? phrase(text::kMigBusyMark, std::move(name)) : std::move(name));
    }
    blockers.push_back(
        phrase(text::kMigBlockedBy, st,
               in.empty() ? phrase(text::kMigLimits) : listText(std::move(in), true)));
  }
  std::vector<std::string> placedText;
  for (const auto& i : s.deepestPlaced()) placedText.push_back(formatMigInstance(model, i, true));
  return phrase(text::kMigFitsNowhere,
                placedText.empty() ? phrase(text::kMigNothing) : literal(join(placedText, ",")),
                formatMigInstance(model, stuck.want), clauseList(std::move(blockers)));
}

// Pins each busy current instance to a desired entry of its shape: first an entry fixed at the
// busy instance's start (only that busy instance can use it), then any unplaced entry (all
// interchangeable), so the matching never fails when one exists.
Expected<std::vector<Slot>> pinBusyInstances(const GpuModel& model, const MigLayout& current,
                                             const MigLayout& desired) {
  std::vector<bool> used(static_cast<size_t>(desired.size()), false);
  std::vector<Slot> slots;
  auto claim = [&](int c, bool exactStart) {
    for (int d = 0; d < desired.size(); ++d) {
      const MigInstance& want = desired[d];
      if (used[static_cast<size_t>(d)] || !want.sameShape(current[c])) continue;
      if (exactStart ? want.start != current[c].start : want.placed()) continue;
      used[static_cast<size_t>(d)] = true;
      slots.push_back({want, c});
      return true;
    }
    return false;
  };
  for (int c = 0; c < current.size(); ++c)
    if (current[c].busy) claim(c, true);
  for (int c = 0; c < current.size(); ++c) {
    if (!current[c].busy) continue;
    const bool pinned =
        std::any_of(slots.begin(), slots.end(), [c](const Slot& s) { return s.busy == c; });
    if (!pinned && !claim(c, false))
      return Error::of(phrase(text::kMigBusyDropped, formatMigInstance(model, current[c])));
  }
  std::vector<Slot> rest;
  for (int d = 0; d < desired.size(); ++d)
    if (!used[static_cast<size_t>(d)]) rest.push_back({desired[d], -1});
  // Largest first prunes early; identical shapes end up adjacent for the symmetry rule.
  std::stable_sort(rest.begin(), rest.end(), [&](const Slot& a, const Slot& b) {
    const auto& pa = prof(*model.mig, a.want);
    const auto& pb = prof(*model.mig, b.want);
    if (pa.memorySlices != pb.memorySlices) return pa.memorySlices > pb.memorySlices;
    if (a.want.profile != b.want.profile) return a.want.profile < b.want.profile;
    return a.want.ciSlices < b.want.ciSlices;
  });
  slots.insert(slots.end(), rest.begin(), rest.end());
  return slots;
}

MigPlan planFrom(const MigGeometry& g, const MigLayout& current, const Best& best) {
  MigPlan plan;
  std::vector<bool> kept(static_cast<size_t>(current.size()), false);
  std::vector<MigInstance> creates;
  for (size_t k = 0; k < best.placed.size(); ++k) {
    plan.target.add(best.placed[k]);
    if (best.reuse[k] >= 0)
      kept[static_cast<size_t>(best.reuse[k])] = true;
    else
      creates.push_back(best.placed[k]);
  }
  plan.target.sortByStart();
  for (int c = 0; c < current.size(); ++c) {
    if (kept[static_cast<size_t>(c)])
      ++plan.keptInstances;
    else
      plan.steps.push_back({MigPlanStep::Kind::Destroy, current[c]});
  }
  // Largest first: the order in which the driver itself succeeds when placements are implicit.
  std::stable_sort(creates.begin(), creates.end(), [&](const auto& a, const auto& b) {
    return prof(g, a).memorySlices > prof(g, b).memorySlices;
  });
  for (const auto& c : creates) plan.steps.push_back({MigPlanStep::Kind::Create, c});
  return plan;
}

}  // namespace

Expected<MigPlan> planMigRepartition(const GpuModel& model, const MigLayout& current,
                                     const MigLayout& desired) {
  if (!model.mig) return Error::of(phrase(text::kMigNotCapable, model.id));
  const MigGeometry& g = *model.mig;
  if (auto v = validateMigLayout(g, current); !v.ok())
    return Error::of(phrase(text::kMigCurrentInvalid, migVerdictText(model, current, v)));
  if (auto problem = setLevelProblem(model, desired); !problem.empty())
    return Error::of(phrase(text::kMigImpossible, std::move(problem)));
  TESSERA_TRY(slots, pinBusyInstances(model, current, desired));
  Search search(g, current, std::move(slots));
  if (!search.run()) return Error::of(phrase(text::kMigGaveUp, kMaxSearchSteps));
  if (!search.best().found) return Error::of(explainPlacementFailure(model, search));
  return planFrom(g, current, search.best());
}

std::string formatMigPlan(const GpuModel& model, const MigPlan& plan) {
  std::string out = "target: " + formatMigLayout(model, plan.target, true) + "\n";
  out += "kept: " + std::to_string(plan.keptInstances) +
         " instance(s); steps: " + std::to_string(plan.steps.size()) + "\n";
  int n = 1;
  for (const auto& step : plan.steps) {
    const bool destroy = step.kind == MigPlanStep::Kind::Destroy;
    out += "  " + std::to_string(n++) + ". " + (destroy ? "destroy " : "create  ") +
           formatMigInstance(model, step.instance) + " (" +
           describeSlices(*model.mig, step.instance) + ")\n";
  }
  return out;
}

}  // namespace tessera
