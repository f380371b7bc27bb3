#include "mig/mig_plan.h"

#include <algorithm>
#include <map>

#include "core/strings.h"
#include "mig/mig_capacity.h"
#include "mig/mig_validate.h"

namespace tessera {

namespace {

const MigProfile& prof(const MigGeometry& g, const MigInstance& i) {
  return g.profiles[static_cast<size_t>(i.profile)];
}

// One desired instance being placed: where it may go, and which current instance it reuses.
struct Slot {
  MigInstance want;
  int reuse = -1;  // index into current, or -1 for a new instance
};

struct Search {
  const MigGeometry& g;
  const MigLayout& current;
  std::vector<Slot> slots;         // busy-matched slots first, then by size (largest first)
  std::vector<bool> currentTaken;  // current instance already reused
  MigUsage usage;
  std::vector<MigInstance> placed;
  int kept = 0;

  bool found = false;
  int bestKept = -1;
  double bestFrag = 0;
  std::vector<MigInstance> best;
  std::vector<int> bestReuse;
  std::vector<int> reuse;

  // Deepest partial assignment, for the explanation when nothing fits.
  size_t deepest = 0;
  uint16_t deepestUsed = 0;
  std::vector<MigInstance> deepestPlaced;

  void consider() {
    MigLayout layout;
    for (const auto& i : placed) layout.add(i);
    const double frag = migFragmentation(g, layout, MigDemand::uniform(g)).score;
    if (!found || kept > bestKept || (kept == bestKept && frag < bestFrag - 1e-12)) {
      found = true;
      bestKept = kept;
      bestFrag = frag;
      best = placed;
      bestReuse = reuse;
    }
  }

  // Candidate starts for slot k: the reused instance's start first, then ascending.
  void place(size_t k) {
    if (k > deepest || (k == deepest && deepestPlaced.empty())) {
      deepest = k;
      deepestUsed = usage.usedMask();
      deepestPlaced = placed;
    }
    if (k == slots.size()) {
      consider();
      return;
    }
    const Slot& slot = slots[k];
    const int p = slot.want.profile;
    if (slot.reuse >= 0) {  // busy: fixed where it is
      tryAt(k, current[slot.reuse].start, slot.reuse);
      return;
    }
    for (int s = 0; s < g.memorySlices; ++s) {
      if (slot.want.placed() && slot.want.start != s) continue;
      if (!usage.canAdd(g, p, s)) continue;
      int match = -1;
      for (int c = 0; c < current.size(); ++c)
        if (!currentTaken[static_cast<size_t>(c)] && !current[c].busy &&
            current[c].sameShape(slot.want) && current[c].start == s)
          match = c;
      tryAt(k, s, match);
    }
  }

  void tryAt(size_t k, int start, int match) {
    const int p = slots[k].want.profile;
    MigInstance inst = slots[k].want;
    inst.start = static_cast<int8_t>(start);
    inst.busy = match >= 0 && current[match].busy;
    usage.add(g, p, start);
    placed.push_back(inst);
    reuse.push_back(match);
    if (match >= 0) {
      currentTaken[static_cast<size_t>(match)] = true;
      ++kept;
    }
    place(k + 1);
    if (match >= 0) {
      currentTaken[static_cast<size_t>(match)] = false;
      --kept;
    }
    reuse.pop_back();
    placed.pop_back();
    usage.remove(g, p, start);
  }
};

// Reasons the desired set is impossible regardless of placement (counts, engines, slices).
std::string setLevelProblem(const GpuModel& model, const MigLayout& desired) {
  const MigGeometry& g = *model.mig;
  std::map<int, int> counts;
  int memory = 0, compute = 0, ofa = 0, jpeg = 0;
  for (const auto& i : desired) {
    ++counts[i.profile];
    memory += prof(g, i).memorySlices;
    compute += prof(g, i).computeSlices;
    ofa += prof(g, i).engines.ofa;
    jpeg += prof(g, i).engines.jpeg;
  }
  for (auto [p, n] : counts)
    if (n > g.profiles[static_cast<size_t>(p)].maxCount)
      return std::to_string(n) + " x " + g.profiles[static_cast<size_t>(p)].name + " exceeds its maximum of " +
             std::to_string(g.profiles[static_cast<size_t>(p)].maxCount) + " per GPU";
  if (memory > g.memorySlices)
    return "the target needs " + std::to_string(memory) + " memory slices; a " + model.id + " has " +
           std::to_string(g.memorySlices);
  if (compute > g.computeSlices)
    return "the target needs " + std::to_string(compute) + " compute slices; a " + model.id + " has " +
           std::to_string(g.computeSlices);
  if (ofa > g.totals.ofa || jpeg > g.totals.jpeg)
    return "the target holds more than one +me instance (the GPU has " + std::to_string(g.totals.ofa) +
           " OFA engine)";
  return {};
}

std::string explainPlacementFailure(const GpuModel& model, const Search& s) {
  const MigGeometry& g = *model.mig;
  const Slot& stuck = s.slots[s.deepest];
  const MigProfile& p = prof(g, stuck.want);
  std::vector<std::string> blockers;
  for (int st = 0; st < g.memorySlices; ++st) {
    if (!p.canStartAt(st) || (stuck.want.placed() && st != stuck.want.start)) continue;
    const uint16_t need = p.maskAt(st);
    std::vector<std::string> in;
    for (const auto& other : s.deepestPlaced)
      if (prof(g, other).maskAt(other.start) & need)
        in.push_back(formatMigInstance(model, other) + (other.busy ? " (busy)" : ""));
    blockers.push_back("@" + std::to_string(st) + " blocked by " + (in.empty() ? std::string("limits") : join(in, " and ")));
  }
  std::vector<std::string> placedText;
  for (const auto& i : s.deepestPlaced) placedText.push_back(formatMigInstance(model, i, true));
  return "no valid layout holds the target: after placing " +
         (placedText.empty() ? std::string("nothing") : join(placedText, ",")) + ", " +
         formatMigInstance(model, stuck.want) + " fits nowhere (" + join(blockers, "; ") + ")";
}

}  // namespace

Expected<MigPlan> planMigRepartition(const GpuModel& model, const MigLayout& current,
                                     const MigLayout& desired) {
  if (!model.mig) return Error{"GPU model '" + model.id + "' is not MIG capable", {}};
  const MigGeometry& g = *model.mig;
  if (auto v = validateMigLayout(g, current); !v.ok())
    return Error{"current layout is invalid: " + explainMigVerdict(model, current, v), {}};
  if (auto problem = setLevelProblem(model, desired); !problem.empty())
    return Error{"target is impossible on any layout: " + problem, {}};

  Search s{g, current, {}, std::vector<bool>(static_cast<size_t>(current.size()), false), {}, {}, 0,
           false, -1, 0, {}, {}, {}, 0, 0, {}};
  std::vector<bool> desiredUsed(static_cast<size_t>(desired.size()), false);
  // Busy instances claim a desired entry of the same shape whose start (if fixed) matches.
  for (int c = 0; c < current.size(); ++c) {
    if (!current[c].busy) continue;
    int match = -1;
    for (int d = 0; d < desired.size() && match < 0; ++d)
      if (!desiredUsed[static_cast<size_t>(d)] && desired[d].sameShape(current[c]) &&
          (!desired[d].placed() || desired[d].start == current[c].start))
        match = d;
    if (match < 0)
      return Error{"busy instance " + formatMigInstance(model, current[c]) +
                       " is not in the target; a repartition may not destroy running work "
                       "(drain it first, or add it to the target)",
                   {}};
    desiredUsed[static_cast<size_t>(match)] = true;
    s.slots.push_back({desired[match], c});
    s.currentTaken[static_cast<size_t>(c)] = true;
    ++s.kept;
  }
  std::vector<Slot> rest;
  for (int d = 0; d < desired.size(); ++d)
    if (!desiredUsed[static_cast<size_t>(d)]) rest.push_back({desired[d], -1});
  std::stable_sort(rest.begin(), rest.end(), [&](const Slot& a, const Slot& b) {
    return prof(g, a.want).memorySlices > prof(g, b.want).memorySlices;
  });
  s.slots.insert(s.slots.end(), rest.begin(), rest.end());
  s.kept = 0;  // counted again as slots are placed

  s.place(0);
  if (!s.found) return Error{explainPlacementFailure(model, s), {}};

  MigPlan plan;
  std::vector<bool> kept(static_cast<size_t>(current.size()), false);
  for (size_t k = 0; k < s.best.size(); ++k) {
    plan.target.add(s.best[k]);
    if (s.bestReuse[k] >= 0) kept[static_cast<size_t>(s.bestReuse[k])] = true;
  }
  plan.target.sortByStart();
  for (int c = 0; c < current.size(); ++c) {
    if (kept[static_cast<size_t>(c)]) ++plan.keptInstances;
    else plan.steps.push_back({MigPlanStep::Kind::Destroy, current[c]});
  }
  std::vector<MigInstance> creates;
  for (size_t k = 0; k < s.best.size(); ++k)
    if (s.bestReuse[k] < 0) creates.push_back(s.best[k]);
  // Largest first: the order in which the driver itself succeeds when placements are implicit.
  std::stable_sort(creates.begin(), creates.end(), [&](const auto& a, const auto& b) {
    return prof(g, a).memorySlices > prof(g, b).memorySlices;
  });
  for (const auto& c : creates) plan.steps.push_back({MigPlanStep::Kind::Create, c});
  return plan;
}

std::string formatMigPlan(const GpuModel& model, const MigPlan& plan) {
  std::string out = "target: " + formatMigLayout(model, plan.target, true) + "\n";
  out += "kept: " + std::to_string(plan.keptInstances) + " instance(s); steps: " +
         std::to_string(plan.steps.size()) + "\n";
  int n = 1;
  for (const auto& step : plan.steps) {
    const bool destroy = step.kind == MigPlanStep::Kind::Destroy;
    out += "  " + std::to_string(n++) + ". " + (destroy ? "destroy " : "create  ") +
           formatMigInstance(model, step.instance) + " (" + describeSlices(*model.mig, step.instance) +
           ")\n";
  }
  return out;
}

}  // namespace tessera
