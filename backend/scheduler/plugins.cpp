// The built-in plugins and the registry that names them. Each plugin is small and stateless;
// docs/scheduler-policy.md describes what each one does and when to pick it.
#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <map>
#include <optional>

#include "core/engine_text.h"
#include "mig/mig_capacity.h"
#include "scheduler/engine.h"
#include "scheduler/frag_score.h"
#include "scheduler/node_filter.h"
#include "scheduler/plugin.h"
#include "scheduler/share_check.h"

namespace tessera {

const char* pluginCodeName(PluginCode c) {
  switch (c) {
    case PluginCode::Success:
      return "success";
    case PluginCode::Unschedulable:
      return "unschedulable";
    case PluginCode::Unresolvable:
      return "unresolvable";
    case PluginCode::Error:
      return "error";
  }
  return "?";
}

namespace {

// ---- queue order

struct PriorityOrder final : QueueOrderPlugin {
  Scope scope() const override { return Scope::Job; }
  double key(const CycleContext&, const JobRecord& j) const override { return -j.job.priority; }
};

struct OperatorOrder final : QueueOrderPlugin {
  Scope scope() const override { return Scope::Job; }
  double key(const CycleContext&, const JobRecord& j) const override {
    return double(j.job.queueRank);
  }
};

double teamValue(const std::vector<double>& v, int team, double fallback) {
  return team >= 0 && static_cast<size_t>(team) < v.size() ? v[static_cast<size_t>(team)]
                                                           : fallback;
}

// Higher fair-share factor (less decayed usage against the deserved share) first.
struct FairShareOrder final : QueueOrderPlugin {
  Scope scope() const override { return Scope::Team; }
  double key(const CycleContext& ctx, const JobRecord& j) const override {
    return -teamValue(ctx.fairShareFactor, j.team, 1.0);
  }
};

// Lower weighted dominant share first (DRF).
struct DrfOrder final : QueueOrderPlugin {
  Scope scope() const override { return Scope::Team; }
  double key(const CycleContext& ctx, const JobRecord& j) const override {
    return teamValue(ctx.dominantShare, j.team, 0.0);
  }
};

struct SubmitTimeOrder final : QueueOrderPlugin {
  Scope scope() const override { return Scope::Job; }
  double key(const CycleContext&, const JobRecord& j) const override {
    return double(j.job.submitTime);
  }
};

// ---- admission

struct HoldAdmission final : AdmissionPlugin {
  PluginStatus admit(const CycleContext&, const JobRecord& job) const override {
    if (job.job.held) return PluginStatus::unschedulable(phrase(text::kHeld));
    return PluginStatus::success();
  }
};

// The cheap check before placement: a team whose every quota together can never cover the job.
struct QuotaAdmission final : AdmissionPlugin {
  PluginStatus admit(const CycleContext& ctx, const JobRecord& job) const override {
    if (!ctx.quotas || !ctx.quotas->managed(job.team)) return PluginStatus::success();
    const double most = ctx.quotas->ceiling(job.team);
    if (job.job.gpuDemand() > most + 1e-9)
      return PluginStatus::unresolvable(phrase(text::kTeamCeiling, job.job.team,
                                               static_cast<int>(most),
                                               gpuAmountText(job.job.gpuDemand())));
    return PluginStatus::success();
  }
};

// ---- filter

struct ReservationFilter final : FilterPlugin {
  bool active(const CycleContext& ctx, const JobRecord&) const override {
    return ctx.reservations && !ctx.reservations->empty();
  }
  bool touches(const CycleContext& ctx, const JobRecord&, Seconds, NodeId n) const override {
    return ctx.reservations && ctx.reservations->touches(n);
  }
  bool usable(const CycleContext& ctx, const JobRecord& job, Seconds start,
              GpuId g) const override {
    return ctx.reservations->usable(g, job.job.team, job.job.id, start, job.endIfStartedAt(start));
  }
  NodeReject rejectReason() const override { return NodeReject::Reserved; }
  std::pair<int, int64_t> hostHeld(const CycleContext& ctx, const JobRecord& job, Seconds start,
                                   NodeId n) const override {
    return ctx.reservations->hostHeld(n, job.job.team, job.job.id, start,
                                      job.endIfStartedAt(start));
  }
};

struct PinFilter final : FilterPlugin {
  bool active(const CycleContext&, const JobRecord& job) const override {
    return !job.pinned.empty();
  }
  PluginStatus check(const CycleContext& ctx, const JobRecord& job) const override {
    for (GpuId g : job.pinned)
      if (g >= ctx.state->cluster().gpus().size())
        return PluginStatus::error(phrase(text::kPinnedGpuMissing, g));
    return PluginStatus::success();
  }
  bool touches(const CycleContext&, const JobRecord& job, Seconds, NodeId) const override {
    return !job.pinned.empty();
  }
  bool usable(const CycleContext&, const JobRecord& job, Seconds, GpuId g) const override {
    return std::binary_search(job.pinned.begin(), job.pinned.end(), g);
  }
  NodeReject rejectReason() const override { return NodeReject::NotPinned; }
};

// ---- score

const Node& firstNode(const CycleContext& ctx, const UnitView& u) {
  return ctx.state->cluster().node(u.nodes.front().first);
}

struct BinPackScore final : ScorePlugin {
  double score(const CycleContext&, const Job&, const UnitView& u) const override {
    return -double(u.freeGpus);
  }
};

struct SpreadScore final : ScorePlugin {
  double score(const CycleContext&, const Job&, const UnitView& u) const override {
    return double(u.freeGpus);
  }
};

int rankOf(const GpuLink& l) {
  return l.kind == LinkKind::NVLink ? 0 : static_cast<int>(l.kind);
}

// Locality inside the unit: fewer nodes for the gang, then the best worst-link among free GPUs of
// one task on the first node (so 2-GPU tasks go where an NVLink pair is free).
struct TopologyScore final : ScorePlugin {
  double score(const CycleContext& ctx, const Job& job, const UnitView& u) const override {
    const auto used = unitTaskNodes(*ctx.state, u, job.tasks);
    double raw = -100.0 * double(used.size());
    if (job.perTask.kind == GpuRequest::Kind::Whole && job.perTask.gpus >= 2)
      raw -= bestWorstLink(ctx, firstNode(ctx, u), job.perTask.gpus);
    return raw;
  }

  static int bestWorstLink(const CycleContext& ctx, const Node& n, int k) {
    std::vector<int> free;
    for (int i = 0; i < n.gpuCount(); ++i)
      if (ctx.state->wholeGpuFree(n.firstGpu + static_cast<GpuId>(i))) free.push_back(i);
    // Greedy: from each seed add the best-linked GPU; enough to tell NVLink pairs from PCIe.
    int best = 1 << 10;
    for (int seed : free) {
      std::vector<int> set{seed};
      int worst = 0;
      while (static_cast<int>(set.size()) < k) {
        int pick = -1, pickRank = 1 << 10;
        for (int c : free) {
          if (std::find(set.begin(), set.end(), c) != set.end()) continue;
          int r = 0;
          for (int s : set) r = std::max(r, rankOf(n.hw->link(s, c)));
          if (r < pickRank) pick = c, pickRank = r;
        }
        if (pick < 0) break;
        set.push_back(pick);
        worst = std::max(worst, pickRank);
      }
      if (static_cast<int>(set.size()) == k) best = std::min(best, worst);
    }
    return best;
  }
};

// MIG fit: an idle instance beats creating one; among creations, the GPU (and start) where the
// new instance leaves the least fragmentation, i.e. keeps the largest profiles placeable.
struct MigFitScore final : ScorePlugin {
  double score(const CycleContext& ctx, const Job& job, const UnitView& u) const override {
    if (job.perTask.kind != GpuRequest::Kind::Mig) return 0;
    const Node& n = firstNode(ctx, u);
    const auto& mig = n.gpuModel().mig;
    const int p = mig ? mig->profileIndex(job.perTask.migProfile) : -1;
    if (p < 0) return -2;
    double best = -2;
    for (int i = 0; i < n.gpuCount(); ++i) {
      const GpuId g = n.firstGpu + static_cast<GpuId>(i);
      if (!ctx.state->cluster().gpu(g).sharing.offersMigInstances()) continue;
      if (ctx.state->idleMigInstances(g, p) > 0) return 1;
      if (const auto fit = migBestNewInstance(*mig, ctx.state->gpu(g).layout, p))
        best = std::max(best, -fit->fragmentation);
    }
    return best;
  }
};

// Fractions: the node whose fullest fitting shared GPU is fullest (packs shares, keeps whole
// GPUs whole).
struct FractionPackScore final : ScorePlugin {
  double score(const CycleContext& ctx, const Job& job, const UnitView& u) const override {
    if (job.perTask.kind != GpuRequest::Kind::Fraction) return 0;
    const Node& n = firstNode(ctx, u);
    int best = -1;
    for (int i = 0; i < n.gpuCount(); ++i) {
      const GpuId g = n.firstGpu + static_cast<GpuId>(i);
      if (takesShare(*ctx.state, g, job.id, job.perTask.milli, job.perTask.vramMiB))
        best = std::max(best, ctx.state->gpu(g).milliUsed);
    }
    return best;
  }
};

}  // namespace

void DemandMix::add(const Job& job) {
  const auto& r = job.perTask;
  counts_[{int(r.kind), r.gpus, r.migProfile, r.milli, job.cpusPerTask, job.model.models,
           job.model.minMemoryMiB}] += job.tasks;
  total_ += job.tasks;
}

std::vector<DemandShape> DemandMix::shapes() const {
  std::vector<DemandShape> out;
  for (const auto& [k, w] : counts_) {
    DemandShape d;
    d.request.kind = static_cast<GpuRequest::Kind>(std::get<0>(k));
    d.request.gpus = std::get<1>(k);
    d.request.migProfile = std::get<2>(k);
    d.request.milli = std::get<3>(k);
    d.cpus = std::get<4>(k);
    d.model.models = std::get<5>(k);
    d.model.minMemoryMiB = std::get<6>(k);
    d.weight = w / total_;
    out.push_back(d);
  }
  return out;
}

namespace {

// ---- permit

struct QuotaPermit final : PermitPlugin {
  PluginStatus permit(const CycleContext& ctx, const JobRecord& job,
                      const GangPlacement& placement) const override {
    // Unmanaged teams are still checked: their department may cap them.
    if (!ctx.quotas || job.team < 0) return PluginStatus::success();
    std::vector<std::vector<GpuId>> gpus;
    for (const auto& t : placement.tasks) gpus.push_back(t.gpus);
    return refusalOf(ctx, job, QuotaCharge::of(*ctx.state, job.job, gpus));
  }

  // When every GPU the job may use is charged to the same quota keys, the placement cannot change
  // the verdict: refuse on the cheapest charge any of those GPUs would make. A team at its limit
  // is then refused without placing each of its queued jobs first.
  PluginStatus refusalAnywhere(const CycleContext& ctx, const JobRecord& job) const override {
    if (!ctx.quotas || job.team < 0 || !job.pinned.empty() ||
        job.job.perTask.kind == GpuRequest::Kind::None)
      return PluginStatus::success();
    const Cluster& cl = ctx.state->cluster();
    std::vector<QuotaBook::Link> keys, k;
    std::optional<GpuId> cheapest;
    double least = 0;
    for (GpuId g : ctx.gpuKinds) {
      const std::string& pool = cl.node(cl.gpu(g).node).pool;
      if (!job.job.pool.empty() && pool != job.job.pool) continue;
      if (!modelQualifies(job.job, cl.modelOf(g))) continue;
      ctx.quotas->chargeChain(job.team, cl.modelOf(g).id, pool, cheapest ? k : keys);
      if (cheapest && !sameKeys(cl, keys, *cheapest, k, g)) return PluginStatus::success();
      // The same keys: only the GPU's per-task share (a MIG profile's size) tells charges apart.
      const double total = perGpuShare(ctx, job.job, g);
      if (!cheapest || total < least) {
        least = total;
        cheapest = g;
      }
    }
    if (!cheapest) return PluginStatus::success();  // no GPU qualifies: placement says why
    return refusalOf(ctx, job, chargeOn(ctx, job.job, *cheapest));
  }

 private:
  static PluginStatus refusalOf(const CycleContext& ctx, const JobRecord& job,
                                const QuotaCharge& charge) {
    if (Text why = ctx.quotas->refusal(*ctx.state, job.team, charge); !why.empty())
      return PluginStatus::unschedulable(why);
    return PluginStatus::success();
  }

  // Chains name keys by slot; a model the team does not list is named by the GPU's model.
  static bool sameKeys(const Cluster& cl, const std::vector<QuotaBook::Link>& a, GpuId ga,
                       const std::vector<QuotaBook::Link>& b, GpuId gb) {
    if (a != b) return false;
    const bool unlisted = std::any_of(a.begin(), a.end(), [](const QuotaBook::Link& l) {
      return l.slot == QuotaBook::kNotListed;
    });
    return !unlisted || cl.modelOf(ga).id == cl.modelOf(gb).id;
  }

  // What one GPU of kind `g` charges the job (its total is this times a fixed GPU count).
  static double perGpuShare(const CycleContext& ctx, const Job& job, GpuId g) {
    return QuotaCharge::of(*ctx.state, job, {{g}}).total();
  }

  // The job's whole charge as if every task ran on GPU `g` (one quota key, one per-GPU share).
  static QuotaCharge chargeOn(const CycleContext& ctx, const Job& job, GpuId g) {
    const size_t perTask =
        job.perTask.kind == GpuRequest::Kind::Whole ? static_cast<size_t>(job.perTask.gpus) : 1;
    const std::vector<std::vector<GpuId>> tasks(static_cast<size_t>(job.tasks),
                                                std::vector<GpuId>(perTask, g));
    return QuotaCharge::of(*ctx.state, job, tasks);
  }
};

template <typename T>
using Factories = std::map<std::string, std::function<std::shared_ptr<const T>()>, std::less<>>;

template <typename T, typename Impl>
std::function<std::shared_ptr<const T>()> make() {
  return [] { return std::make_shared<const Impl>(); };
}

struct Tables {
  Factories<QueueOrderPlugin> queueOrder{
      {"priority", make<QueueOrderPlugin, PriorityOrder>()},
      {"operator-order", make<QueueOrderPlugin, OperatorOrder>()},
      {"fair-share", make<QueueOrderPlugin, FairShareOrder>()},
      {"drf", make<QueueOrderPlugin, DrfOrder>()},
      {"submit-time", make<QueueOrderPlugin, SubmitTimeOrder>()}};
  Factories<AdmissionPlugin> admission{{"hold", make<AdmissionPlugin, HoldAdmission>()},
                                       {"quota", make<AdmissionPlugin, QuotaAdmission>()}};
  Factories<FilterPlugin> filter{{"reservations", make<FilterPlugin, ReservationFilter>()},
                                 {"pin", make<FilterPlugin, PinFilter>()}};
  Factories<ScorePlugin> score{{"binpack", make<ScorePlugin, BinPackScore>()},
                               {"spread", make<ScorePlugin, SpreadScore>()},
                               {"topology", make<ScorePlugin, TopologyScore>()},
                               {"mig-fit", make<ScorePlugin, MigFitScore>()},
                               {"fraction-pack", make<ScorePlugin, FractionPackScore>()},
                               {"fgd", [] { return makeFragScore(frag::kFgdMeasure); }},
                               {"fgd-reach", [] { return makeFragScore(frag::kTesseraMeasure); }}};
  Factories<PermitPlugin> permit{{"quota", make<PermitPlugin, QuotaPermit>()}};
};

const Tables& tables() {
  static const Tables t;
  return t;
}

template <typename T>
std::vector<std::string> keys(const Factories<T>& f) {
  std::vector<std::string> out;
  for (const auto& [name, make] : f) out.push_back(name);
  return out;
}

}  // namespace

const PluginRegistry& PluginRegistry::builtin() {
  static const PluginRegistry r;
  return r;
}

std::vector<std::string> PluginRegistry::names(std::string_view point) const {
  const Tables& t = tables();
  if (point == "queue_order") return keys(t.queueOrder);
  if (point == "admission") return keys(t.admission);
  if (point == "filter") return keys(t.filter);
  if (point == "score") return keys(t.score);
  if (point == "permit") return keys(t.permit);
  if (point == "preemption") return {"checkpoint-aware"};
  if (point == "backfill") return {"reservations"};
  return {};
}

bool PluginRegistry::has(std::string_view point, std::string_view name) const {
  const auto n = names(point);
  return std::find(n.begin(), n.end(), name) != n.end();
}

Expected<PluginSet> PluginRegistry::instantiate(const Policy& p) const {
  const Tables& t = tables();
  PluginSet set;
  auto unknown = [](const std::string& point, const std::string& name) {
    return Error{"policy: unknown " + point + " plugin '" + name + "'", {}};
  };
  for (const auto& n : p.queueOrder) {
    const auto it = t.queueOrder.find(n);
    if (it == t.queueOrder.end()) return unknown("queue_order", n);
    set.queueOrder.push_back(it->second());
  }
  for (const auto& n : p.admission) {
    const auto it = t.admission.find(n);
    if (it == t.admission.end()) return unknown("admission", n);
    set.admission.emplace_back(n, it->second());
  }
  for (const auto& n : p.filter) {
    const auto it = t.filter.find(n);
    if (it == t.filter.end()) return unknown("filter", n);
    set.filter.push_back(it->second());
  }
  for (const auto& s : p.score) {
    const auto it = t.score.find(s.name);
    if (it == t.score.end()) return unknown("score", s.name);
    if (s.weight > 0) set.score.emplace_back(it->second(), s.weight);
  }
  for (const auto& n : p.permit) {
    const auto it = t.permit.find(n);
    if (it == t.permit.end()) return unknown("permit", n);
    set.permit.emplace_back(n, it->second());
  }
  if (p.preemption.plugin == "checkpoint-aware")
    set.preemption = makeCheckpointAwarePreemption();
  else if (p.preemption.plugin != "none")
    return unknown("preemption", p.preemption.plugin);
  if (p.backfill.plugin == "reservations")
    set.backfill = makeReservationBackfill();
  else if (p.backfill.plugin != "none")
    return unknown("backfill", p.backfill.plugin);
  return set;
}

}  // namespace tessera
