#include "scheduler/explain.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "core/engine_text.h"
#include "mig/mig_capacity.h"
#include "mig/mig_plan.h"

namespace tessera {

const char* counterfactualKindName(Counterfactual::Kind k) {
  switch (k) {
    case Counterfactual::Kind::Quota:
      return "quota";
    case Counterfactual::Kind::Repartition:
      return "repartition";
    case Counterfactual::Kind::JobsEnd:
      return "jobs-end";
    case Counterfactual::Kind::RelaxTopology:
      return "relax-topology";
    case Counterfactual::Kind::Preemption:
      return "preemption";
    case Counterfactual::Kind::Release:
      return "release";
  }
  return "?";
}

namespace {

Text durationText(Seconds s) {
  if (s < 120) return phrase(text::kSeconds, s);
  if (s < 2 * 3600) return phrase(text::kMinutes, (s + 30) / 60);
  return phrase(text::kHoursMinutes, s / 3600, (s % 3600) / 60);
}

Text levelPhrase(TopologyLevel l) {
  switch (l) {
    case TopologyLevel::Gpu:
    case TopologyLevel::Node:
      return phrase(text::kOnOneNode);
    case TopologyLevel::NvlinkDomain:
      return phrase(text::kNvlinkConnected);
    case TopologyLevel::Leaf:
      return phrase(text::kUnderOneLeaf);
    case TopologyLevel::Spine:
      return phrase(text::kUnderOneSpine);
    case TopologyLevel::Cluster:
      break;
  }
  return phrase(text::kInTheCluster);
}

// 1 + pending jobs the queue order puts ahead: the last cycle's answer when there was one, else
// counted against every pending job (no full sort needed for one job).
int queuePosition(const Engine& e, const CycleContext& ctx, const JobRecord& j, int& length) {
  int ahead = 0;
  length = 0;
  for (const JobRecord* o : e.jobs()) {
    if (o->state != JobState::Pending) continue;
    ++length;
    if (o == &j || e.queuePosition(j) > 0) continue;
    int c = 0;
    for (const auto& p : e.plugins().queueOrder)
      if ((c = p->compare(ctx, *o, j)) != 0) break;
    if (c < 0 || (c == 0 && o->job.id < j.job.id)) ++ahead;
  }
  return e.queuePosition(j) > 0 ? e.queuePosition(j) : ahead + 1;
}

// Whole-GPU gangs: free GPUs the job could use against the largest free block at the level it
// must stay within ("8 GPUs free, but the largest NVLink-connected free block is 4").
Text wholeGpuFragmentation(const Engine& e, const JobRecord& j) {
  const Job& job = j.job;
  if (job.perTask.kind != GpuRequest::Kind::Whole) return {};
  const ClusterState& s = e.state();
  const Cluster& c = s.cluster();
  const TopologyLevel level = job.topology.required
                                  ? job.topology.level
                                  : (job.tasks == 1 ? TopologyLevel::Node : TopologyLevel::Cluster);
  int freeTotal = 0;
  std::map<int64_t, int> blocks;
  for (const auto& n : c.nodes()) {
    if (s.nodeState(n.id) != NodeState::Up || !nodeEligible(job, n)) continue;
    const int free = s.freeWholeGpusOnNode(n.id);
    freeTotal += free;
    if (const auto key = topologyUnitOf(c, n.id, level))
      blocks[*key] += free / job.perTask.gpus * job.perTask.gpus;
  }
  int largest = 0;
  for (const auto& [k, b] : blocks) largest = std::max(largest, b);
  const int need = job.tasks * job.perTask.gpus;
  if (freeTotal < need || largest >= need) return {};
  return phrase(text::kFragmentation, freeTotal, levelPhrase(level), largest, need);
}

std::optional<Counterfactual> relaxTopology(const Engine& e, const CycleContext& ctx,
                                            const JobRecord& j) {
  if (!j.job.topology.required || j.job.topology.level == TopologyLevel::Cluster) return {};
  for (TopologyLevel l : {TopologyLevel::NvlinkDomain, TopologyLevel::Leaf, TopologyLevel::Spine,
                          TopologyLevel::Cluster}) {
    if (l <= j.job.topology.level) continue;
    Transaction tx(e.scratch());
    PlacementOptions o;
    o.topology = TopologyConstraint{l, true};
    if (e.tryPlace(tx, j, ctx, ctx.now, o).placement)
      return Counterfactual{Counterfactual::Kind::RelaxTopology,
                            phrase(text::kCfRelaxTopology, topologyConstraintName(l))};
  }
  return {};
}

// The MIG GPU that can host the profile with the fewest changes, keeping busy instances.
std::optional<Counterfactual> repartition(const Engine& e, const JobRecord& j) {
  const Job& job = j.job;
  if (job.perTask.kind != GpuRequest::Kind::Mig || job.tasks != 1) return {};
  const ClusterState& s = e.state();
  const Cluster& c = s.cluster();
  std::optional<std::pair<int, Text>> best;  // (steps, text)
  int examined = 0;
  for (const auto& n : c.nodes()) {
    if (s.nodeState(n.id) != NodeState::Up || (!job.pool.empty() && n.pool != job.pool)) continue;
    const GpuModel& m = n.gpuModel();
    if (!m.mig || m.mig->profileIndex(job.perTask.migProfile) < 0) continue;
    for (int i = 0; i < n.gpuCount() && examined < 512; ++i) {
      const GpuId g = n.firstGpu + static_cast<GpuId>(i);
      if (!c.gpu(g).sharing.offersMigInstances()) continue;
      ++examined;
      const GpuOccupancy& o = s.gpu(g);
      MigLayout current = o.layout;
      MigLayout desired;
      for (int k = 0; k < current.size(); ++k) {
        current[k].busy = o.instanceOwner[static_cast<size_t>(k)] != kNoJob;
        if (current[k].busy) {
          MigInstance keep = current[k];
          desired.add(keep);
        }
      }
      MigInstance want;
      want.profile = static_cast<int8_t>(m.mig->profileIndex(job.perTask.migProfile));
      desired.add(want);
      const auto plan = planMigRepartition(m, current, desired);
      if (!plan) continue;
      const int steps = static_cast<int>(plan->steps.size());
      if (best && best->first <= steps) continue;
      best = {steps, phrase(text::kCfRepartition, c.gpuName(g),
                            current.size() ? literal(formatMigLayout(m, current))
                                           : phrase(text::kEmptyLayout),
                            formatMigLayout(m, plan->target), steps)};
    }
  }
  if (!best) return {};
  return Counterfactual{Counterfactual::Kind::Repartition, best->second};
}

// Teams above their guarantee on the keys the job's team is refused on.
std::vector<std::string> borrowingTeams(const Engine& e) {
  std::vector<std::string> out;
  const QuotaBook& q = e.quotas();
  for (size_t t = 0; t < q.teams().size(); ++t)
    for (const auto& [key, quota] : q.teams()[t].quotas)
      if (q.usage(static_cast<int>(t), key) > quota.guaranteed + 1e-9) {
        out.push_back(q.teams()[t].name);
        break;
      }
  return out;
}

// The guarantee increase that admits the job, checked by re-running the quota check with it.
std::optional<Counterfactual> quotaCounterfactual(const Engine& e, const JobRecord& j,
                                                  const QuotaCharge& charge) {
  const auto [where, n] = e.quotas().shortfall(e.state(), j.job.team, charge);
  const auto colon = where.find(':');
  if (n <= 0 || colon == std::string::npos) return std::nullopt;
  const std::string team = where.substr(0, colon), key = where.substr(colon + 1);
  QuotaBook raised = e.quotas();
  const int t = raised.teamIndex(team);
  if (t < 0) return std::nullopt;
  const auto& table = raised.teams()[static_cast<size_t>(t)].quotas;
  Quota q = table.count(key) ? table.at(key) : Quota{0, 0, -1};
  q.guaranteed += n;
  if (!raised.setQuota(team, key, q) || !raised.refusal(e.state(), j.job.team, charge).empty())
    return std::nullopt;
  return Counterfactual{Counterfactual::Kind::Quota, phrase(text::kCfQuota, team, key, n)};
}

// Who the job could displace now (the checkpoint-aware plan, whether or not the policy preempts).
std::optional<Counterfactual> preemptionCounterfactual(const Engine& e, const CycleContext& ctx,
                                                       const JobRecord& j) {
  const auto plugin =
      e.plugins().preemption ? e.plugins().preemption : makeCheckpointAwarePreemption();
  const auto plan = plugin->plan(e, ctx, j);
  if (!plan) return std::nullopt;
  std::vector<JobId> victims;
  double lost = 0;
  for (const auto& v : plan->victims) {
    victims.push_back(v.job);
    lost += v.gpuHoursLost;
  }
  std::ostringstream hours;
  hours << std::round(lost * 100) / 100;
  return Counterfactual{Counterfactual::Kind::Preemption,
                        phrase(text::kCfPreempt, jobsText(victims), hours.str())};
}

void explainStart(const Engine& e, const CycleContext& ctx, const JobRecord& j, Explanation& ex);

void explainPending(const Engine& e, const JobRecord& j, Explanation& ex) {
  const CycleContext ctx = e.context();
  ex.queuePosition = queuePosition(e, ctx, j, ex.queueLength);
  const PluginStatus admitted = e.admit(ctx, j);
  if (!admitted.ok()) {
    ex.dominantReason = admitted.reason;
    if (j.job.held)
      ex.counterfactuals.push_back({Counterfactual::Kind::Release, phrase(text::kCfRelease)});
    // A quota refusal still gets its counterfactual: where it would go, and the missing GPUs.
    if (admitted.plugin != "quota") return;
  }
  Transaction tx(e.scratch());
  PlacementOptions full;
  full.fullFilter = true;
  GangResult r = e.tryPlace(tx, j, ctx, ctx.now, full);
  ex.filter = r.filter;
  ex.nodeSummary = r.filter.summary();
  if (r.placement) {
    const PluginStatus p = e.permit(ctx, j, *r.placement);
    const QuotaCharge charge = e.chargeOf(j, *r.placement);
    tx.discard();
    if (!p.ok() || !admitted.ok()) {
      if (admitted.ok()) ex.dominantReason = p.reason;
      ex.blockingQueues = borrowingTeams(e);
      if (auto cf = quotaCounterfactual(e, j, charge)) ex.counterfactuals.push_back(*cf);
      // A job its quota holds back still has its place on the backfill timeline.
      if (admitted.ok()) explainStart(e, ctx, j, ex);
      return;
    }
    ex.dominantReason = phrase(text::kFitsNow);
    return;
  }
  if (!admitted.ok()) return;
  tx.discard();
  ex.dominantReason = r.reason;
  const auto largest = std::max_element(r.filter.rejected.begin(), r.filter.rejected.end());
  if (r.filter.fits.empty() && largest != r.filter.rejected.end() &&
      static_cast<NodeReject>(largest - r.filter.rejected.begin()) == NodeReject::Reserved) {
    // Only holds that keep this job off GPUs it could otherwise use, made for jobs ahead of it.
    std::set<JobId> holders;
    const Seconds end = j.endIfStartedAt(ctx.now);
    for (const auto& res : e.reservations().all()) {
      if (res.kind != Reservation::Kind::Backfill || res.job == j.job.id) continue;
      const JobRecord* holder = e.job(res.job);
      if (!holder || (e.queuePosition(j) > 0 && e.queuePosition(*holder) > e.queuePosition(j)))
        continue;
      if (!(ctx.now < res.until && res.from < end)) continue;
      const bool relevant = std::any_of(res.gpus.begin(), res.gpus.end(), [&](GpuId g) {
        return nodeEligible(j.job, e.cluster().node(e.cluster().gpu(g).node));
      });
      if (relevant) holders.insert(res.job);
    }
    ex.blockingJobs.assign(holders.begin(), holders.end());
    ex.dominantReason = holders.empty() ? phrase(text::kReservedOther)
                                        : phrase(text::kReservedFor, jobsText(ex.blockingJobs));
  }
  ex.fragmentation = wholeGpuFragmentation(e, j);
  if (!ex.fragmentation.empty())
    ex.dominantReason = phrase(text::kFragmentationReason, ex.fragmentation);
  if (auto cf = relaxTopology(e, ctx, j)) ex.counterfactuals.push_back(*cf);
  if (auto cf = repartition(e, j)) ex.counterfactuals.push_back(*cf);
  if (auto cf = preemptionCounterfactual(e, ctx, j)) ex.counterfactuals.push_back(*cf);
  explainStart(e, ctx, j, ex);
}

// When it will start: the last cycle's reservation, else a fresh plan.
void explainStart(const Engine& e, const CycleContext& ctx, const JobRecord& j, Explanation& ex) {
  std::optional<Seconds> eta = j.eta;
  std::vector<JobId> waiting = j.waitingFor;
  if (!eta && e.plugins().backfill)
    if (auto plan = e.plugins().backfill->reserve(e, ctx, j)) {
      eta = plan->start;
      waiting = plan->waitingFor;
    }
  if (eta) {
    ex.eta = eta;
    for (JobId w : waiting) ex.blockingJobs.push_back(w);
    if (!waiting.empty())
      ex.counterfactuals.push_back(
          {Counterfactual::Kind::JobsEnd,
           phrase(waiting.size() == 1 ? text::kCfJobEnds : text::kCfJobsEnd, jobsText(waiting),
                  durationText(*eta - ctx.now))});
  }
}

}  // namespace

Expected<Explanation> explain(const Engine& engine, JobId id) {
  const JobRecord* j = engine.job(id);
  if (!j) return Error::notFound(phrase(text::kNoJob, id));
  Explanation ex;
  ex.job = id;
  ex.state = j->state;
  // Events a long-running backend forgot are in its database; it fills the history from there.
  for (uint32_t i : j->eventIndex)
    if (const Event* ev = engine.eventAt(i)) ex.history.push_back(historyLine(*ev));
  switch (j->state) {
    case JobState::Pending:
      explainPending(engine, *j, ex);
      break;
    case JobState::Admitted:
    case JobState::Running: {
      std::vector<Text> tasks;
      for (const auto& t : j->placement->tasks) {
        std::string gpus;
        for (GpuId g : t.gpus)
          gpus += (gpus.empty() ? "" : " ") + std::to_string(engine.cluster().gpu(g).index);
        tasks.push_back(phrase(text::kGpuOfNode, engine.cluster().node(t.node).name, gpus));
      }
      ex.placement = clauseList(std::move(tasks));
      ex.dominantReason = phrase(text::kRunningSince, j->startTime, ex.placement);
      break;
    }
    default: {
      const Event* last = j->eventIndex.empty() ? nullptr : engine.eventAt(j->eventIndex.back());
      ex.dominantReason = last ? phrase(text::kLabelled, jobStateText(j->state), last->reason)
                               : jobStateText(j->state);
      break;
    }
  }
  return ex;
}

std::string Explanation::text() const {
  std::ostringstream o;
  o << "job " << job << ": " << jobStateName(state) << "\n  why: " << dominantReason.english()
    << "\n";
  if (!nodeSummary.empty()) o << "  nodes: " << nodeSummary.english() << "\n";
  if (!fragmentation.empty()) o << "  fragmentation: " << fragmentation.english() << "\n";
  if (queuePosition) o << "  queue position: " << *queuePosition << " of " << queueLength << "\n";
  if (eta) o << "  estimated start: t=" << *eta << "\n";
  if (!blockingJobs.empty()) o << "  waiting for: " << jobsText(blockingJobs).english() << "\n";
  if (!blockingQueues.empty()) {
    o << "  borrowing teams:";
    for (const auto& q : blockingQueues) o << ' ' << q;
    o << "\n";
  }
  for (const auto& c : counterfactuals)
    o << "  " << counterfactualKindName(c.kind) << ": " << c.text.english() << "\n";
  if (!placement.empty()) o << "  placement: " << placement.english() << "\n";
  return o.str();
}

std::vector<std::string> preemptionReport(const Engine& engine) {
  std::vector<std::string> out;
  for (const auto& ev : engine.events())
    if (ev.kind == EventKind::Preempted)
      out.push_back("t=" + std::to_string(ev.time) + " job " + std::to_string(ev.job) + " " +
                    ev.reason.english());
  return out;
}

}  // namespace tessera
