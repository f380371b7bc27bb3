#include "scheduler/command.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

namespace tessera {

namespace {

template <class... Ts>
struct Overload : Ts... {
  using Ts::operator()...;
};

std::string jobText(JobId id) {
  return "job " + std::to_string(id);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

Expected<GpuId> resolveGpu(const Cluster& c, const std::string& name, const std::string& field) {
  const Gpu* g = c.findGpu(name);
  if (!g) return Error{"unknown GPU '" + name + "' (expected node/index)", {"", 0, 0, field}};
  return g->id;
}

Expected<NodeId> resolveNode(const Cluster& c, const std::string& name, const std::string& field) {
  const Node* n = c.findNode(name);
  if (!n) return Error{"unknown node '" + name + "'", {"", 0, 0, field}};
  return n->id;
}

Expected<std::vector<GpuId>> gpusOf(const Cluster& c, const std::vector<std::string>& gpus,
                                    const std::vector<std::string>& nodes) {
  std::vector<GpuId> out;
  for (size_t i = 0; i < gpus.size(); ++i) {
    TESSERA_TRY(g, resolveGpu(c, gpus[i], "gpus[" + std::to_string(i) + "]"));
    out.push_back(g);
  }
  for (size_t i = 0; i < nodes.size(); ++i) {
    TESSERA_TRY(n, resolveNode(c, nodes[i], "nodes[" + std::to_string(i) + "]"));
    for (int k = 0; k < c.node(n).gpuCount(); ++k)
      out.push_back(c.node(n).firstGpu + static_cast<GpuId>(k));
  }
  return out;
}

Expected<std::string> move(Engine& e, const cmd::Move& m) {
  const JobRecord* j = e.job(m.job);
  if (!j) return Error{"no " + jobText(m.job), {"", 0, 0, "job"}};
  if (j->state != JobState::Pending)
    return Error{jobText(m.job) + " is not pending", {"", 0, 0, "job"}};
  std::vector<const JobRecord*> peers;
  for (const JobRecord* p : e.jobs())
    if (p->state == JobState::Pending && p->job.id != m.job) peers.push_back(p);
  int64_t lo = 0, hi = 0;
  for (const JobRecord* p : peers) {
    lo = std::min(lo, p->job.queueRank);
    hi = std::max(hi, p->job.queueRank);
  }
  switch (m.to) {
    case cmd::Move::To::Top:
      TESSERA_CHECK(e.moveInQueue(m.job, lo - 1));
      return jobText(m.job) + " moved to the top of its priority";
    case cmd::Move::To::Bottom:
      TESSERA_CHECK(e.moveInQueue(m.job, hi + 1));
      return jobText(m.job) + " moved to the bottom of its priority";
    case cmd::Move::To::Before: {
      const JobRecord* x = e.job(m.before);
      if (!x || x->state != JobState::Pending)
        return Error{"job " + std::to_string(m.before) + " is not a pending job",
                     {"", 0, 0, "before"}};
      const int64_t rank = x->job.queueRank;
      // Everything from X's rank on steps back one, so the job sits just ahead of X's rank.
      for (const JobRecord* p : peers)
        if (p->job.queueRank >= rank) TESSERA_CHECK(e.moveInQueue(p->job.id, p->job.queueRank + 1));
      TESSERA_CHECK(e.moveInQueue(m.job, rank));
      return jobText(m.job) + " moved ahead of job " + std::to_string(m.before);
    }
  }
  return std::string{};
}

Expected<std::string> applyTo(Engine& e, const Command& c, const std::string& actor) {
  const Cluster& cl = e.cluster();
  return std::visit(
      Overload{
          [&](const cmd::Submit& s) -> Expected<std::string> {
            TESSERA_TRY(id, e.submit(s.job, actor));
            return "submitted " + jobText(id);
          },
          [&](const cmd::Cancel& s) -> Expected<std::string> {
            TESSERA_CHECK(e.cancel(s.job, actor, "cancelled by " + actor));
            return jobText(s.job) + " cancelled";
          },
          [&](const cmd::Hold& s) -> Expected<std::string> {
            TESSERA_CHECK(e.hold(s.job, true, actor));
            return jobText(s.job) + " held";
          },
          [&](const cmd::Release& s) -> Expected<std::string> {
            TESSERA_CHECK(e.hold(s.job, false, actor));
            return jobText(s.job) + " released";
          },
          [&](const cmd::SetPriority& s) -> Expected<std::string> {
            TESSERA_CHECK(e.setPriority(s.job, s.priorityClass, actor));
            return jobText(s.job) + " now " + s.priorityClass;
          },
          [&](const cmd::Move& s) -> Expected<std::string> { return move(e, s); },
          [&](const cmd::Pin& s) -> Expected<std::string> {
            TESSERA_TRY(gpus, gpusOf(cl, s.gpus, s.nodes));
            const size_t n = gpus.size();
            if (auto pinned = e.pin(s.job, std::move(gpus)); !pinned)
              return Error{pinned.error().message, {"", 0, 0, "gpus"}};
            return n ? jobText(s.job) + " pinned to " + std::to_string(n) + " GPU(s)"
                     : jobText(s.job) + " unpinned";
          },
          [&](const cmd::Preempt& s) -> Expected<std::string> {
            TESSERA_CHECK(e.preempt(s.job, kNoJob, actor, "preempted by operator " + actor));
            return jobText(s.job) + " preempted";
          },
          [&](const cmd::Repartition& s) -> Expected<std::string> {
            TESSERA_TRY(g, resolveGpu(cl, s.gpu, "gpu"));
            const GpuModel& model = cl.modelOf(g);
            if (!model.mig || cl.gpu(g).sharing.mode != SharingMode::Mig)
              return Error{"GPU " + s.gpu + " is not in MIG mode", {"", 0, 0, "gpu"}};
            auto layout = parseMigLayout(model, s.layout);
            if (!layout) return Error{layout.error().message, {"", 0, 0, "layout"}};
            auto st = e.repartition(g, *layout, s.force, actor);
            if (!st) return Error{st.error().message, {"", 0, 0, "layout"}};
            return "GPU " + s.gpu + " repartitioned to " + formatMigLayout(model, *layout);
          },
          [&](const cmd::Drain& s) -> Expected<std::string> {
            TESSERA_TRY(n, resolveNode(cl, s.node, "node"));
            // Draining again with a reason replaces the reason (Slurm's scontrol update reason=):
            // an operator keeping a faulted node out says so, and the repair leaves it drained.
            if (e.state().nodeState(n) == NodeState::Draining) {
              if (s.reason.empty())
                return Error{"node " + s.node + " is already drained", {"", 0, 0, "node"}};
              TESSERA_CHECK(e.setNodeState(n, NodeState::Draining, s.reason));
              return "node " + s.node + " stays drained (" + s.reason + ")";
            }
            TESSERA_CHECK(e.drain(n, true, s.reason));
            return "node " + s.node + " drained" + (s.reason.empty() ? "" : " (" + s.reason + ")");
          },
          [&](const cmd::Undrain& s) -> Expected<std::string> {
            TESSERA_TRY(n, resolveNode(cl, s.node, "node"));
            if (e.state().nodeState(n) != NodeState::Draining)
              return Error{"node " + s.node + " is not drained", {"", 0, 0, "node"}};
            TESSERA_CHECK(e.drain(n, false));
            return "node " + s.node + " back in service";
          },
          [&](const cmd::SetQuota& s) -> Expected<std::string> {
            if (s.key != "*" && s.key.rfind("pool:", 0) != 0 &&
                std::none_of(cl.nodes().begin(), cl.nodes().end(),
                             [&](const Node& n) { return n.gpuModel().id == s.key; }))
              return Error{"quota key '" + s.key +
                               "' is neither a GPU model of this cluster, 'pool:NAME' nor '*'",
                           {"", 0, 0, "key"}};
            auto st = e.setQuota(s.team, s.key, s.quota);
            if (!st) return Error{st.error().message, {"", 0, 0, "team"}};
            return "quota of team " + s.team + " on " + s.key + " set to " +
                   std::to_string(s.quota.guaranteed) + " guaranteed, " +
                   std::to_string(s.quota.borrowLimit) + " borrow";
          },
          [&](const cmd::CreateReservation& s) -> Expected<std::string> {
            if (s.nodes.empty())
              return Error{"a reservation needs at least one node", {"", 0, 0, "nodes"}};
            TESSERA_TRY(gpus, gpusOf(cl, {}, s.nodes));
            Reservation r;
            r.kind = s.team.empty() ? Reservation::Kind::Maintenance : Reservation::Kind::Team;
            r.id = s.id;
            r.gpus = std::move(gpus);
            r.from = s.from;
            r.until = s.until;
            r.team = s.team;
            r.nodes = s.nodes;
            TESSERA_CHECK(e.addReservation(std::move(r)));
            return "reservation " + s.id + " created";
          },
          [&](const cmd::DeleteReservation& s) -> Expected<std::string> {
            TESSERA_CHECK(e.removeReservation(s.id));
            return "reservation " + s.id + " deleted";
          },
      },
      c);
}

Impact diff(const Engine& before, const Engine& after) {
  Impact impact;
  for (const JobRecord* a : after.jobs()) {
    const JobRecord* b = before.job(a->job.id);
    const JobState was = b ? b->state : JobState::Pending;
    if (a->state == JobState::Running && was != JobState::Running) {
      impact.started.push_back(a->job.id);
      impact.placementChanges.push_back(jobText(a->job.id) + ": " +
                                        placementText(after.cluster(), *a->placement));
    } else if (was == JobState::Running && a->state == JobState::Pending) {
      impact.preempted.push_back(a->job.id);
    } else if (was == JobState::Running && a->state != JobState::Running) {
      impact.stopped.push_back(a->job.id);
    }
    impact.gpuHoursLost += a->gpuHoursLost - (b ? b->gpuHoursLost : 0.0);
  }
  return impact;
}

// Running jobs on the reservation's nodes, not exempt from it, still expected to run at its start.
std::vector<std::string> reservationConflicts(const Engine& e, const cmd::CreateReservation& r) {
  std::vector<std::string> out;
  std::set<NodeId> nodes;
  for (const auto& name : r.nodes)
    if (const Node* n = e.cluster().findNode(name)) nodes.insert(n->id);
  for (const JobRecord* j : e.running()) {
    if (!r.team.empty() && j->job.team == r.team) continue;
    const auto used = j->nodes();
    if (std::none_of(used.begin(), used.end(), [&](NodeId n) { return nodes.count(n) > 0; }))
      continue;
    const Seconds end = j->expectedEnd();
    if (end <= r.from) continue;
    out.push_back(jobText(j->job.id) + " on " + e.cluster().node(used.front()).name +
                  (end >= kForever ? " has no runtime estimate and may still run"
                                   : " is expected to run until t=" + std::to_string(end)) +
                  " when reservation " + r.id + " starts at t=" + std::to_string(r.from));
  }
  return out;
}

}  // namespace

std::string describe(const Command& c) {
  return std::visit(
      Overload{
          [](const cmd::Submit& s) { return "submit job " + std::to_string(s.job.id); },
          [](const cmd::Cancel& s) { return "cancel " + jobText(s.job); },
          [](const cmd::Hold& s) { return "hold " + jobText(s.job); },
          [](const cmd::Release& s) { return "release " + jobText(s.job); },
          [](const cmd::SetPriority& s) {
            return "set priority of " + jobText(s.job) + " to " + s.priorityClass;
          },
          [](const cmd::Move& s) {
            return "move " + jobText(s.job) +
                   (s.to == cmd::Move::To::Top      ? " to the top"
                    : s.to == cmd::Move::To::Bottom ? " to the bottom"
                                                    : " before job " + std::to_string(s.before));
          },
          [](const cmd::Pin& s) {
            return "pin " + jobText(s.job) + " to gpus [" + joined(s.gpus) + "] nodes [" +
                   joined(s.nodes) + "]";
          },
          [](const cmd::Preempt& s) { return "preempt " + jobText(s.job); },
          [](const cmd::Repartition& s) {
            return "repartition " + s.gpu + " to " + s.layout + (s.force ? " (force)" : "");
          },
          [](const cmd::Drain& s) { return "drain node " + s.node; },
          [](const cmd::Undrain& s) { return "undrain node " + s.node; },
          [](const cmd::SetQuota& s) { return "set quota of team " + s.team + " on " + s.key; },
          [](const cmd::CreateReservation& s) {
            return "create reservation " + s.id + " on [" + joined(s.nodes) + "]";
          },
          [](const cmd::DeleteReservation& s) { return "delete reservation " + s.id; },
      },
      c);
}

std::string Impact::summary() const {
  auto ids = [](const std::vector<JobId>& v) {
    std::string out;
    for (JobId j : v) out += (out.empty() ? "" : ", ") + std::to_string(j);
    return out;
  };
  std::ostringstream s;
  s << started.size() << " job(s) would start";
  if (!started.empty()) s << " (" << ids(started) << ")";
  s << ", " << preempted.size() << " preempted";
  if (!preempted.empty()) s << " (" << ids(preempted) << ")";
  if (!stopped.empty()) s << ", " << stopped.size() << " stopped (" << ids(stopped) << ")";
  s << ", " << std::round(gpuHoursLost * 100) / 100 << " GPU-hours lost";
  for (const auto& w : warnings) s << "; warning: " << w;
  return s.str();
}

Expected<CommandResult> execute(Engine& engine, const Command& c, const std::string& actor,
                                bool dryRun) {
  // The impact is always predicted on a fork: the command, then one cycle.
  Engine fork = engine;
  auto message = applyTo(fork, c, actor);
  if (!message) {
    if (!dryRun) engine.recordCommand(actor, describe(c), "refused: " + message.error().str());
    return message.error();
  }
  fork.runCycle();
  CommandResult result;
  result.impact = diff(engine, fork);
  if (const auto* r = std::get_if<cmd::CreateReservation>(&c))
    result.impact.warnings = reservationConflicts(engine, *r);
  if (dryRun) {
    result.message = "dry run: " + *message + "; " + result.impact.summary();
    return result;
  }
  auto applied = applyTo(engine, c, actor);
  if (!applied) return applied.error();  // cannot differ from the fork; kept for safety
  result.applied = true;
  result.message = *applied;
  engine.recordCommand(actor, describe(c), "applied: " + *applied);
  return result;
}

}  // namespace tessera
