#include "scheduler/command.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include "core/engine_text.h"
#include "core/input_limits.h"

namespace tessera {

namespace {

template <class... Ts>
struct Overload : Ts... {
  using Ts::operator()...;
};
// Aggregate deduction (C++20) comes with clang 17; the fuzz preset builds with clang 14.
template <class... Ts>
Overload(Ts...) -> Overload<Ts...>;

std::string jobText(JobId id) {
  return "job " + std::to_string(id);
}

// The engine's refusal, now about the request's field.
Error atField(Error e, std::string field) {
  e.where.field = std::move(field);
  return e;
}

SourceLocation field(std::string name) {
  return {"", 0, 0, std::move(name)};
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ",") + i;
  return out;
}

Expected<GpuId> resolveGpu(const Cluster& c, const std::string& name, const std::string& field) {
  const Gpu* g = c.findGpu(name);
  if (!g) return Error::notFound(phrase(text::kUnknownGpu, name), {"", 0, 0, field});
  return g->id;
}

Expected<NodeId> resolveNode(const Cluster& c, const std::string& name, const std::string& field) {
  const Node* n = c.findNode(name);
  if (!n) return Error::notFound(phrase(text::kUnknownNode, name), {"", 0, 0, field});
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

// Operator ranks are spaced this far apart, so that a move before another job takes the rank
// halfway to the next lower one: one job written, not every job behind it (at 150,000 pending,
// where every job keeps rank 0 until moved, that was most of the queue). Only when twenty moves
// have halved a gap to nothing are the ranks from the target's on shifted to open it again.
constexpr int64_t kRankGap = int64_t{1} << 20;

Expected<Text> move(Engine& e, const cmd::Move& m, std::vector<JobId>& touched) {
  const JobRecord* j = e.job(m.job);
  if (!j) return Error::notFound(phrase(text::kNoJob, m.job), field("job"));
  if (j->state != JobState::Pending)
    return Error::wrongState(phrase(text::kNotPending, m.job), field("job"));
  // The queue only (the engine's index of active jobs), not every job since start: a daemon
  // that has run for months holds far more finished jobs than pending ones.
  std::vector<const JobRecord*> peers = e.pending();
  std::erase_if(peers, [&m](const JobRecord* p) { return p->job.id == m.job; });
  int64_t lo = 0, hi = 0;
  for (const JobRecord* p : peers) {
    lo = std::min(lo, p->job.queueRank);
    hi = std::max(hi, p->job.queueRank);
  }
  switch (m.to) {
    case cmd::Move::To::Top:
      TESSERA_CHECK(e.moveInQueue(m.job, lo - kRankGap));
      return phrase(text::kDidMoveTop, m.job);
    case cmd::Move::To::Bottom:
      TESSERA_CHECK(e.moveInQueue(m.job, hi + kRankGap));
      return phrase(text::kDidMoveBottom, m.job);
    case cmd::Move::To::Before: {
      const JobRecord* x = e.job(m.before);
      if (!x || x->state != JobState::Pending)
        return Error::wrongState(phrase(text::kNotAPendingJob, m.before), field("before"));
      // The job goes just ahead of X's rank: behind every job ranked lower, ahead of every job
      // ranked as X is (as if everything from X's rank on stepped back).
      int64_t rank = x->job.queueRank;
      int64_t below = rank - 2 * kRankGap;
      for (const JobRecord* p : peers)
        if (p->job.queueRank < rank) below = std::max(below, p->job.queueRank);
      if (rank - below < 2) {
        // In submission order, as before: the jobs a move touches are reported in that order.
        std::sort(peers.begin(), peers.end(),
                  [](const JobRecord* a, const JobRecord* b) { return a->job.id < b->job.id; });
        for (const JobRecord* p : peers)
          if (p->job.queueRank >= rank) {
            TESSERA_CHECK(e.moveInQueue(p->job.id, p->job.queueRank + kRankGap));
            touched.push_back(p->job.id);
          }
        rank += kRankGap;
      }
      TESSERA_CHECK(e.moveInQueue(m.job, below + (rank - below) / 2));
      return phrase(text::kDidMoveBefore, m.job, m.before);
    }
  }
  return Text{};
}

Expected<Text> drain(Engine& e, const cmd::Drain& d) {
  TESSERA_TRY(n, resolveNode(e.cluster(), d.node, "node"));
  // Draining again with a reason replaces the reason (Slurm's scontrol update reason=). A node
  // out for a fault or a failure only gets the operator's hold too: it stays out after repair.
  if (e.nodeHolds(n).find(HoldOwner::Operator)) {
    if (d.reason.empty())
      return Error::wrongState(phrase(text::kAlreadyDrained, d.node), field("node"));
    TESSERA_CHECK(e.drain(n, true, d.reason));
    return phrase(text::kDidStayDrained, d.node, d.reason);
  }
  TESSERA_CHECK(e.drain(n, true, d.reason));
  return d.reason.empty() ? phrase(text::kDidDrain, d.node)
                          : phrase(text::kDidDrainWhy, d.node, d.reason);
}

// An operator's undrain vouches for the node: it clears their own hold, a GPU fault's and the
// executor's (which the executor then resumes on its side). A failure keeps the node down and a
// MIG reconfiguration keeps it out until they are over: the reply says so.
Expected<Text> undrain(Engine& e, const cmd::Undrain& u) {
  TESSERA_TRY(n, resolveNode(e.cluster(), u.node, "node"));
  std::vector<NodeHold> cleared;
  for (const NodeHold& h : e.nodeHolds(n).all())
    if (h.owner == HoldOwner::Operator || h.owner == HoldOwner::GpuFault ||
        h.owner == HoldOwner::Executor)
      cleared.push_back(h);
  if (cleared.empty()) return Error::wrongState(phrase(text::kNotDrained, u.node), field("node"));
  for (const NodeHold& h : cleared) TESSERA_CHECK(e.removeNodeHold(n, h.owner, h.gpu));
  if (e.state().nodeState(n) != NodeState::Up)
    return phrase(text::kDidUndrainStillOut, u.node, e.nodeReason(n));
  return phrase(text::kDidUndrain, u.node);
}

Expected<Text> applyTo(Engine& e, const Command& c, const std::string& actor,
                       std::vector<JobId>& touched) {
  const Cluster& cl = e.cluster();
  return std::visit(
      Overload{
          [&](const cmd::Submit& s) -> Expected<Text> {
            TESSERA_TRY(id, e.submit(s.job, actor));
            return phrase(text::kDidSubmit, id);
          },
          [&](const cmd::Cancel& s) -> Expected<Text> {
            TESSERA_CHECK(e.cancel(s.job, actor, phrase(text::kCancelledBy, actor)));
            return phrase(text::kDidCancel, s.job);
          },
          [&](const cmd::Hold& s) -> Expected<Text> {
            TESSERA_CHECK(e.hold(s.job, true, actor));
            return phrase(text::kDidHold, s.job);
          },
          [&](const cmd::Release& s) -> Expected<Text> {
            TESSERA_CHECK(e.hold(s.job, false, actor));
            return phrase(text::kDidRelease, s.job);
          },
          [&](const cmd::SetPriority& s) -> Expected<Text> {
            TESSERA_CHECK(e.setPriority(s.job, s.priorityClass, actor));
            return phrase(text::kDidPriority, s.job, s.priorityClass);
          },
          [&](const cmd::Move& s) -> Expected<Text> { return move(e, s, touched); },
          [&](const cmd::Pin& s) -> Expected<Text> {
            TESSERA_TRY(gpus, gpusOf(cl, s.gpus, s.nodes));
            const size_t n = gpus.size();
            if (auto pinned = e.pin(s.job, std::move(gpus)); !pinned)
              return atField(pinned.error(), "gpus");
            return n ? phrase(text::kDidPin, s.job, n) : phrase(text::kDidUnpin, s.job);
          },
          [&](const cmd::Preempt& s) -> Expected<Text> {
            TESSERA_CHECK(e.preempt(s.job, kNoJob, actor, phrase(text::kByOperator, actor)));
            return phrase(text::kDidPreempt, s.job);
          },
          [&](const cmd::Repartition& s) -> Expected<Text> {
            TESSERA_TRY(g, resolveGpu(cl, s.gpu, "gpu"));
            const GpuModel& model = cl.modelOf(g);
            if (!model.mig || cl.gpu(g).sharing.mode != SharingMode::Mig)
              return Error::wrongState(phrase(text::kNotMig, s.gpu), field("gpu"));
            auto layout = parseMigLayout(model, s.layout);
            if (!layout) return atField(layout.error(), "layout");
            auto st = e.repartition(g, *layout, s.force, actor);
            if (!st) return atField(st.error(), "layout");
            return phrase(text::kDidRepartition, s.gpu, formatMigLayout(model, *layout));
          },
          [&](const cmd::Drain& s) { return drain(e, s); },
          [&](const cmd::Undrain& s) { return undrain(e, s); },
          [&](const cmd::SetQuota& s) -> Expected<Text> {
            if (s.key != "*" && s.key.rfind("pool:", 0) != 0 &&
                std::none_of(cl.nodes().begin(), cl.nodes().end(),
                             [&](const Node& n) { return n.gpuModel().id == s.key; }))
              return Error::of(phrase(text::kBadQuotaKey, s.key), field("key"));
            auto st = e.setQuota(s.team, s.key, s.quota);
            if (!st) return atField(st.error(), "team");
            return phrase(text::kDidQuota, s.team, s.key, s.quota.guaranteed, s.quota.borrowLimit);
          },
          [&](const cmd::CreateReservation& s) -> Expected<Text> {
            if (s.nodes.empty())
              return Error::of(phrase(text::kReservationNeedsNode), field("nodes"));
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
            return phrase(text::kDidCreateReservation, s.id);
          },
          [&](const cmd::DeleteReservation& s) -> Expected<Text> {
            TESSERA_CHECK(e.removeReservation(s.id));
            return phrase(text::kDidDeleteReservation, s.id);
          },
      },
      c);
}

Impact impactOf(const Engine& after, const Engine::WhatIf& whatIf) {
  Impact impact;
  for (const auto& [b, a] : whatIf.changedJobs()) {
    const JobState was = b ? b->state : JobState::Pending;
    if (a->state == JobState::Running && was != JobState::Running) {
      impact.started.push_back(a->job.id);
      impact.placementChanges.push_back({a->job.id, placementText(after.cluster(), *a->placement)});
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
std::vector<Text> reservationConflicts(const Engine& e, const cmd::CreateReservation& r) {
  std::vector<Text> out;
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
    const std::string& node = e.cluster().node(used.front()).name;
    out.push_back(end >= kForever
                      ? phrase(text::kConflictNoEstimate, j->job.id, node, r.id, r.from)
                      : phrase(text::kConflictUntil, j->job.id, node, end, r.id, r.from));
  }
  return out;
}

}  // namespace

std::string PlacementChange::english() const {
  return jobText(job) + ": " + where;
}

std::string describe(const Command& c) {
  return describeText(c).english();
}

Text describeText(const Command& c) {
  return std::visit(
      Overload{
          [](const cmd::Submit& s) { return phrase(text::kDoSubmit, s.job.id); },
          [](const cmd::Cancel& s) { return phrase(text::kDoCancel, s.job); },
          [](const cmd::Hold& s) { return phrase(text::kDoHold, s.job); },
          [](const cmd::Release& s) { return phrase(text::kDoRelease, s.job); },
          [](const cmd::SetPriority& s) {
            return phrase(text::kDoPriority, s.job, s.priorityClass);
          },
          [](const cmd::Move& s) {
            return s.to == cmd::Move::To::Top      ? phrase(text::kDoMoveTop, s.job)
                   : s.to == cmd::Move::To::Bottom ? phrase(text::kDoMoveBottom, s.job)
                                                   : phrase(text::kDoMoveBefore, s.job, s.before);
          },
          [](const cmd::Pin& s) {
            return phrase(text::kDoPin, s.job, joined(s.gpus), joined(s.nodes));
          },
          [](const cmd::Preempt& s) { return phrase(text::kDoPreempt, s.job); },
          [](const cmd::Repartition& s) {
            return phrase(s.force ? text::kDoRepartitionForce : text::kDoRepartition, s.gpu,
                          s.layout);
          },
          [](const cmd::Drain& s) { return phrase(text::kDoDrain, s.node); },
          [](const cmd::Undrain& s) { return phrase(text::kDoUndrain, s.node); },
          [](const cmd::SetQuota& s) { return phrase(text::kDoQuota, s.team, s.key); },
          [](const cmd::CreateReservation& s) {
            return phrase(text::kDoCreateReservation, s.id, joined(s.nodes));
          },
          [](const cmd::DeleteReservation& s) { return phrase(text::kDoDeleteReservation, s.id); },
      },
      c);
}

Text Impact::summary() const {
  const auto ids = jobIdList;
  std::vector<Text> parts;
  parts.push_back(started.empty() ? phrase(text::kImpactStart, started.size())
                                  : phrase(text::kImpactStartList, started.size(), ids(started)));
  parts.push_back(preempted.empty()
                      ? phrase(text::kImpactPreempted, preempted.size())
                      : phrase(text::kImpactPreemptedList, preempted.size(), ids(preempted)));
  if (!stopped.empty()) parts.push_back(phrase(text::kImpactStopped, stopped.size(), ids(stopped)));
  std::ostringstream lost;
  lost << std::round(gpuHoursLost * 100) / 100;
  parts.push_back(phrase(text::kImpactLost, lost.str()));
  Text out = listText(std::move(parts));
  for (const auto& w : warnings) out = phrase(text::kClauses, out, phrase(text::kWarning, w));
  return out;
}

namespace {

// Names and texts within core/input_limits.h. A command that breaks them is malformed: refused
// before the engine sees it, like a request that does not parse (and not copied into the audit
// log, whose line would repeat a megabyte of reason).
Status checkCommandFields(const Command& c) {
  const auto name = [](const std::string& s, const char* f) {
    return checkTextField(s, kMaxNameChars, f);
  };
  return std::visit(
      Overload{
          [](const cmd::Submit&) { return okStatus(); },  // the engine checks the job itself
          [&](const cmd::SetPriority& s) { return name(s.priorityClass, "priority_class"); },
          [](const cmd::Pin& p) -> Status {
            TESSERA_CHECK(checkNameList(p.gpus, "gpus"));
            return checkNameList(p.nodes, "nodes");
          },
          [&](const cmd::Repartition& r) -> Status {
            TESSERA_CHECK(name(r.gpu, "gpu"));
            return name(r.layout, "layout");
          },
          [&](const cmd::Drain& d) -> Status {
            TESSERA_CHECK(name(d.node, "node"));
            return checkTextField(d.reason.english(), kMaxReasonChars, "reason");
          },
          [&](const cmd::Undrain& u) { return name(u.node, "node"); },
          [&](const cmd::SetQuota& q) -> Status {
            TESSERA_CHECK(name(q.team, "team"));
            return name(q.key, "key");
          },
          [&](const cmd::CreateReservation& r) -> Status {
            TESSERA_CHECK(name(r.id, "id"));
            TESSERA_CHECK(name(r.team, "team"));
            return checkNameList(r.nodes, "nodes");
          },
          [&](const cmd::DeleteReservation& r) { return name(r.id, "id"); },
          [](const auto&) { return okStatus(); },  // job ids only
      },
      c);
}

}  // namespace

std::optional<JobId> targetJob(const Command& c) {
  return std::visit(
      [](const auto& x) -> std::optional<JobId> {
        if constexpr (requires { x.job.id; })
          return std::nullopt;  // a submit: the job has no id yet
        else if constexpr (requires { x.job; })
          return static_cast<JobId>(x.job);
        else
          return std::nullopt;
      },
      c);
}

namespace {

// A dry run: the command, then one cycle, in a what-if undone as a whole (no copy of the
// engine). The impact is what that cycle would start and evict.
Expected<CommandResult> predict(Engine& engine, const Command& c, const std::string& actor) {
  CommandResult result;
  Expected<Text> message = Text{};
  {
    Engine::WhatIf whatIf(engine);
    std::vector<JobId> ignored;
    message = applyTo(engine, c, actor, ignored);
    if (message) {
      engine.runCycle();
      result.impact = impactOf(engine, whatIf);
    }
  }
  if (!message) return message.error();
  if (const auto* r = std::get_if<cmd::CreateReservation>(&c))
    result.impact.warnings = reservationConflicts(engine, *r);
  result.message = phrase(text::kDryRun, *message, result.impact.summary());
  return result;
}

// An applied command runs no cycle: its impact is what the command itself did (the job it
// stopped or requeued); what starts in the GPUs it frees is the next cycle's decision, which
// tesserad runs at once and reports in its events. The what-if here only makes the command
// atomic: one that fails half-way leaves nothing behind.
Expected<CommandResult> apply(Engine& engine, const Command& c, const std::string& actor) {
  CommandResult result;
  Expected<Text> applied = Text{};
  {
    Engine::WhatIf attempt(engine, Engine::WhatIf::Purpose::Apply);
    applied = applyTo(engine, c, actor, result.touched.jobs);
    if (applied) {
      result.impact = impactOf(engine, attempt);
      attempt.keep();
    }
  }
  if (!applied) {
    engine.recordCommand(actor,
                         phrase(text::kAuditRefused, describeText(c), applied.error().sentence()));
    return applied.error();
  }
  if (const auto* r = std::get_if<cmd::CreateReservation>(&c))
    result.impact.warnings = reservationConflicts(engine, *r);
  result.applied = true;
  if (const auto job = targetJob(c)) result.touched.jobs.push_back(*job);
  result.touched.setup = std::holds_alternative<cmd::SetQuota>(c);
  result.message = *applied;
  engine.recordCommand(actor, phrase(text::kAuditApplied, describeText(c), *applied));
  return result;
}

}  // namespace

Expected<CommandResult> execute(Engine& engine, const Command& c, const std::string& actor,
                                bool dryRun) {
  TESSERA_CHECK(checkCommandFields(c));
  return dryRun ? predict(engine, c, actor) : apply(engine, c, actor);
}

}  // namespace tessera
