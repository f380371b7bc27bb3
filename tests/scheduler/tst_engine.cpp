// Engine-level unit tests not driven by scenario files: creation and submit validation, the job
// lifecycle and its event log, the clock, future arrivals, holds, operator commands (dry run,
// audit, validation) and the invariant checker.
#include <QtTest>
#include <numeric>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "clusterspec/cluster_spec.h"
#include "engine_fixture.h"
#include "scheduler/command.h"
#include "scheduler/engine.h"
#include "scheduler/explain.h"

using namespace tessera;

namespace {

using test::cluster;
using test::job;
using test::tenants;

Engine makeEngine(const Workload& w = tenants(), Policy policy = {}) {
  auto e = Engine::create(cluster(), w, std::move(policy));
  if (!e) qFatal("%s", e.error().str().c_str());
  return std::move(*e);
}

QString q(const std::string& s) {
  return QString::fromStdString(s);
}
QString q(const tessera::Text& t) {
  return QString::fromStdString(t.english());
}

JobState stateOf(const Engine& e, JobId id) {
  const JobRecord* r = e.job(id);
  if (!r) qFatal("no job %llu", static_cast<unsigned long long>(id));
  return r->state;
}

// What a dry run must leave alone.
struct Snapshot {
  std::vector<std::tuple<JobId, JobState, bool, std::vector<GpuId>>> jobs;
  size_t events = 0;
  int freeGpus = 0;
  Seconds now = 0;
  uint64_t cycles = 0;

  static Snapshot of(const Engine& e) {
    Snapshot s;
    for (const JobRecord* r : e.jobs())
      s.jobs.emplace_back(r->job.id, r->state, r->job.held, r->pinned);
    s.events = e.events().size();
    s.freeGpus = e.state().freeWholeGpus();
    s.now = e.now();
    s.cycles = e.stats().cycles;
    return s;
  }
  bool operator==(const Snapshot&) const = default;
};

// Everything a cycle or a command may change, as text: two engines with the same fingerprint
// decide the same from here on.
std::string fingerprint(const Engine& e) {
  std::ostringstream o;
  o << "now " << e.now() << " cycles " << e.stats().cycles << " events " << e.eventCount()
    << " free " << e.state().freeWholeGpus() << "\n";
  for (const JobRecord* r : e.jobs()) {
    o << r->job.id << " " << jobStateName(r->state) << " '" << r->reason.english() << "' "
      << static_cast<int>(r->pendingCode) << " " << r->blockedBy << " eta " << r->eta.value_or(-1)
      << " held " << r->job.held << " rank " << r->job.queueRank << " class "
      << r->job.priorityClass << " start " << r->startTime << " end " << r->endTime << " slot "
      << r->runningSlot << " events " << r->eventIndex.size() << " position " << e.queuePosition(*r)
      << " lost " << r->gpuHoursLost << " waiting";
    for (JobId w : r->waitingFor) o << " " << w;
    if (r->placement)
      for (const auto& t : r->placement->tasks)
        for (GpuId g : t.gpus) o << " g" << g;
    o << "\n";
  }
  for (const auto& end : e.runningByEnd()) o << "end " << end.id << "@" << end.end << "\n";
  for (const Reservation& r : e.reservations().all()) o << "reservation " << r.id << "\n";
  for (size_t t = 0; t < e.quotas().teams().size(); ++t)
    o << "team " << t << " use " << e.teamUse()[t].gpus << " quota "
      << e.quotas().usage(static_cast<int>(t), "*") << "\n";
  for (const Node& n : e.cluster().nodes())
    o << n.name << " " << nodeStateName(e.state().nodeState(n.id)) << " '"
      << e.nodeReason(n.id).english() << "'\n";
  for (const JobRecord* r : e.queue()) o << "q " << r->job.id;
  return o.str();
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += (out.empty() ? "" : "; ") + l;
  return out;
}

void checkSeqHasNoGaps(const Engine& e) {
  for (size_t i = 0; i < e.events().size(); ++i) QCOMPARE(e.events()[i].seq, uint64_t{i + 1});
}

}  // namespace

class TstEngine : public QObject {
  Q_OBJECT

 private slots:
  // Sentences name ten jobs and count the rest; two read "jobs 4 and 7".
  void jobListsInSentences() {
    std::vector<JobId> ids(25);
    std::iota(ids.begin(), ids.end(), JobId{1});
    QCOMPARE(q(jobsText(ids)), QString("jobs 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 and 15 more"));
    QCOMPARE(q(jobsText({4, 7})), QString("jobs 4 and 7"));
    QCOMPARE(q(jobsText({4})), QString("job 4"));
  }

  void createFailsOnUnknownPlugin() {
    Policy p;
    p.score = {{"binpack", 1}, {"nope", 1}};
    auto e = Engine::create(cluster(), tenants(), p);
    QVERIFY(!e);
    QCOMPARE(q(e.error().message), QString("policy: unknown score plugin 'nope'"));
    p = {};
    p.preemption.plugin = "greedy";
    e = Engine::create(cluster(), tenants(), p);
    QVERIFY(!e);
    QCOMPARE(q(e.error().message), QString("policy: unknown preemption plugin 'greedy'"));
  }

  void createFailsOnABadTenantJob() {
    Workload w = tenants();
    w.jobs = {job(1, 1, "nobody")};
    auto e = Engine::create(cluster(), w);
    QVERIFY(!e);
    QCOMPARE(q(e.error().message), QString("job 1: unknown team 'nobody'"));
  }

  void submitValidation() {
    Engine e = makeEngine();
    auto id = e.submit(job(1, 2));
    QVERIFY(id);
    QCOMPARE(*id, JobId{1});
    QCOMPARE(e.job(1)->job.priority, 500);  // experiment
    QCOMPARE(e.job(1)->team, 0);
    const size_t events = e.events().size();

    auto r = e.submit(job(1, 1));
    QVERIFY(!r);
    QCOMPARE(q(r.error().message), QString("job 1 already exists"));
    r = e.submit(job(2, 1, "nobody"));
    QVERIFY(!r);
    QCOMPARE(q(r.error().message), QString("job 2: unknown team 'nobody'"));
    r = e.submit(job(3, 1, "vision", "urgent"));
    QVERIFY(!r);
    QCOMPARE(q(r.error().message), QString("job 3: unknown priority class 'urgent' (known: "
                                           "serving, production-training, experiment, spot)"));
    Job none = job(4, 1);
    none.perTask = {};
    r = e.submit(none);
    QVERIFY(!r);
    QCOMPARE(q(r.error().message), QString("job 4 requests no GPU (give gpus, mig or fraction)"));
    r = e.submit(job(5, 0));  // whole GPUs, zero of them
    QVERIFY(!r);
    QCOMPARE(q(r.error().message), QString("job 5 requests no GPU (give gpus, mig or fraction)"));
    Job noTasks = job(6, 1);
    noTasks.tasks = 0;
    r = e.submit(noTasks);
    QVERIFY(!r);
    QCOMPARE(q(r.error().message), QString("a job needs at least one task"));
    // Nothing was recorded for the refused ones.
    QCOMPARE(e.events().size(), events);
    QCOMPARE(e.jobs().size(), size_t{1});
    for (JobId j : {JobId{2}, JobId{3}, JobId{4}, JobId{5}, JobId{6}}) QCOMPARE(e.job(j), nullptr);
    // Without an id the next free one is taken.
    id = e.submit(job(kNoJob, 1, "nlp", "spot"));
    QVERIFY(id);
    QCOMPARE(*id, JobId{2});
    QCOMPARE(e.job(2)->job.priority, 100);
  }

  // An id still waiting for its submit time is taken too.
  void duplicateOfAFutureJob() {
    Engine e = makeEngine();
    Job later = job(5, 1);
    later.submitTime = 100;
    QVERIFY(e.submit(later));
    const auto dup = e.submit(job(5, 2));
    QVERIFY(!dup);
    // The clock still moves past the arrival: the refused duplicate left nothing behind.
    const auto moved = e.advanceTo(100);
    QVERIFY2(moved, moved ? "" : moved.error().message.c_str());
  }

  void lifecycleEventsInOrder() {
    Engine e = makeEngine();
    QVERIFY(e.submit(job(1, 2)));
    QVERIFY(e.submit(job(2, 1, "nlp")));
    QCOMPARE(e.events().size(), size_t{2});
    const auto st = e.runCycle();
    QCOMPARE(st.started, 2);
    QCOMPARE(st.pending, 2);
    QCOMPARE(stateOf(e, 1), JobState::Running);
    QCOMPARE(e.state().freeWholeGpus(), 8 - 3);
    QVERIFY(e.advanceTo(3600));
    QVERIFY(e.complete(1));
    QVERIFY(e.fail(2, literal("out of memory")));
    QCOMPARE(e.state().freeWholeGpus(), 8);

    std::vector<const Event*> one, two;
    for (const auto& ev : e.events()) (ev.job == 1 ? one : two).push_back(&ev);
    QCOMPARE(one.size(), size_t{4});
    const EventKind kinds[] = {EventKind::Submitted, EventKind::Admitted, EventKind::Started,
                               EventKind::Completed};
    const JobState from[] = {JobState::Pending, JobState::Pending, JobState::Admitted,
                             JobState::Running};
    const JobState to[] = {JobState::Pending, JobState::Admitted, JobState::Running,
                           JobState::Completed};
    for (size_t i = 0; i < 4; ++i) {
      QCOMPARE(one[i]->kind, kinds[i]);
      QCOMPARE(one[i]->from, from[i]);
      QCOMPARE(one[i]->to, to[i]);
      QCOMPARE(q(one[i]->actor), QString("scheduler"));
    }
    QCOMPARE(q(one[0]->reason), QString("submitted"));
    QCOMPARE(q(one[1]->reason), QString("admitted: placed"));
    QVERIFY2(q(one[2]->reason).startsWith("started on h"), one[2]->reason.english().c_str());
    QCOMPARE(q(one[3]->reason), QString("finished"));
    QCOMPARE(one[0]->time, Seconds{0});
    QCOMPARE(one[2]->time, Seconds{0});
    QCOMPARE(one[3]->time, Seconds{3600});
    QVERIFY(one[0]->seq < one[1]->seq && one[1]->seq < one[2]->seq && one[2]->seq < one[3]->seq);
    QCOMPARE(two.back()->kind, EventKind::Failed);
    QCOMPARE(q(two.back()->reason), QString("out of memory"));
    QCOMPARE(two.back()->to, JobState::Failed);
    checkSeqHasNoGaps(e);
    QCOMPARE(e.events().size(), size_t{8});
    QCOMPARE(stateOf(e, 1), JobState::Completed);
    QCOMPARE(e.job(1)->endTime, Seconds{3600});
    QCOMPARE(stateOf(e, 2), JobState::Failed);
  }

  void completeOrFailOfANonRunningJob() {
    Engine e = makeEngine();
    QVERIFY(e.submit(job(1, 1)));
    const size_t events = e.events().size();
    auto st = e.complete(1);
    QVERIFY(!st);
    QCOMPARE(q(st.error().message), QString("job 1 is pending, not running"));
    st = e.fail(1, literal("x"));
    QVERIFY(!st);
    QCOMPARE(q(st.error().message), QString("job 1 is pending, not running"));
    st = e.complete(42);
    QVERIFY(!st);
    QCOMPARE(q(st.error().message), QString("no job 42"));
    QCOMPARE(e.events().size(), events);
    QCOMPARE(stateOf(e, 1), JobState::Pending);
    e.runCycle();
    QVERIFY(e.complete(1));
    st = e.complete(1);
    QVERIFY(!st);
    QCOMPARE(q(st.error().message), QString("job 1 is completed, not running"));
    st = e.fail(1, literal("late"));
    QVERIFY(!st);
    QCOMPARE(stateOf(e, 1), JobState::Completed);
  }

  void clockNeverGoesBack() {
    Engine e = makeEngine();
    QVERIFY(e.advanceTo(100));
    QCOMPARE(e.now(), Seconds{100});
    const auto st = e.advanceTo(50);
    QVERIFY(!st);
    QCOMPARE(q(st.error().message), QString("the clock cannot go back (now 100, asked 50)"));
    QCOMPARE(e.now(), Seconds{100});
    QVERIFY(e.advanceTo(100));  // standing still is fine
    QCOMPARE(e.now(), Seconds{100});
  }

  void futureJobsArriveWhenTheClockPasses() {
    Workload w = tenants();
    Job early = job(1, 1);
    Job late = job(2, 1);
    late.submitTime = 600;
    w.jobs = {late, early};
    Engine e = makeEngine(w);
    QVERIFY(e.job(1));
    QCOMPARE(e.job(2), nullptr);
    Job mine = job(3, 1);
    mine.submitTime = 300;
    const auto id = e.submit(mine);
    QVERIFY(id);
    QCOMPARE(*id, JobId{3});
    QCOMPARE(e.job(3), nullptr);
    // A new id skips those still to arrive: max(1, 2, 3) + 1.
    const auto next = e.submit(job(kNoJob, 1));
    QVERIFY(next);
    QCOMPARE(*next, JobId{4});
    QVERIFY(e.advanceTo(299));
    QCOMPARE(e.job(3), nullptr);
    QVERIFY(e.advanceTo(300));
    QVERIFY(e.job(3));
    QCOMPARE(stateOf(e, 3), JobState::Pending);
    QCOMPARE(e.events().back().kind, EventKind::Submitted);
    QCOMPARE(e.events().back().job, JobId{3});
    QCOMPARE(e.events().back().time, Seconds{300});
    QCOMPARE(e.job(2), nullptr);
    QVERIFY(e.advanceTo(1000));  // past 600
    QVERIFY(e.job(2));
    QCOMPARE(stateOf(e, 2), JobState::Pending);
    checkSeqHasNoGaps(e);
  }

  // A running job's GPUs follow what the cluster bound: same node and count, other GPUs; the
  // old ones are free again and the move is audited. A binding onto busy GPUs, another node or
  // another count changes nothing.
  void aRunningJobIsReboundToTheClustersGpus() {
    Engine e = makeEngine();
    QVERIFY(e.submit(job(1, 2)));
    QCOMPARE(e.runCycle().started, 1);
    const NodeId node = e.job(1)->placement->tasks.front().node;
    const std::vector<GpuId> before = e.job(1)->placement->tasks.front().gpus;
    const GpuId first = cluster()->node(node).firstGpu;
    std::vector<GpuId> others;
    for (GpuId g = first; g < first + 4; ++g)
      if (e.state().gpu(g).wholeOwner == kNoJob) others.push_back(g);
    QCOMPARE(others.size(), size_t{2});
    const size_t events = e.events().size();
    QVERIFY(e.rebind(1, {{node, others, -1}}, "slurm"));
    QCOMPARE(e.job(1)->placement->tasks.front().gpus, others);
    for (GpuId g : others) QCOMPARE(e.state().gpu(g).wholeOwner, JobId{1});
    for (GpuId g : before) QCOMPARE(e.state().gpu(g).wholeOwner, kNoJob);
    QCOMPARE(e.events().size(), events + 1);
    QCOMPARE(e.events().back().job, JobId{1});
    QCOMPARE(e.events().back().kind, EventKind::Command);
    QVERIFY2(e.invariantViolations().empty(), joined(e.invariantViolations()).c_str());

    // Job 2 takes the GPUs job 1 left: job 1 cannot be bound back onto them.
    Job two = job(2, 2);
    two.pinNodes = {cluster()->node(node).name};
    QVERIFY(e.submit(two));
    QCOMPARE(e.runCycle().started, 1);
    const size_t settled = e.events().size();
    QVERIFY(!e.rebind(1, {{node, before, -1}}, "slurm"));
    const NodeId elsewhere = node == 0 ? 1 : 0;
    const GpuId otherFirst = cluster()->node(elsewhere).firstGpu;
    QVERIFY(!e.rebind(1, {{elsewhere, {otherFirst, otherFirst + 1}, -1}}, "slurm"));
    QVERIFY(!e.rebind(1, {{node, {others.front()}, -1}}, "slurm"));  // one GPU, not two
    QCOMPARE(e.job(1)->placement->tasks.front().gpus, others);
    for (GpuId g : others) QCOMPARE(e.state().gpu(g).wholeOwner, JobId{1});
    QCOMPARE(e.events().size(), settled);
  }

  void heldJobIsNotStarted() {
    Engine e = makeEngine();
    Job held = job(1, 1);
    held.held = true;
    QVERIFY(e.submit(held));
    QCOMPARE(q(e.events().back().reason), QString("submitted on hold"));
    const auto st = e.runCycle();
    QCOMPARE(st.started, 0);
    QCOMPARE(stateOf(e, 1), JobState::Pending);
    QCOMPARE(q(e.job(1)->reason), QString("held by an operator"));
    QCOMPARE(e.state().freeWholeGpus(), 8);
    auto ex = explain(e, 1);
    QVERIFY(ex);
    QVERIFY2(q(ex->dominantReason).contains("held"), ex->dominantReason.english().c_str());
    QVERIFY(std::any_of(ex->counterfactuals.begin(), ex->counterfactuals.end(),
                        [](const auto& c) { return c.kind == Counterfactual::Kind::Release; }));
    // Released, it starts in the next cycle.
    QVERIFY(e.hold(1, false, "alice"));
    QCOMPARE(e.events().back().kind, EventKind::Released);
    QCOMPARE(q(e.events().back().actor), QString("alice"));
    QCOMPARE(e.runCycle().started, 1);
    QCOMPARE(stateOf(e, 1), JobState::Running);
  }

  void dryRunLeavesTheEngineUnchanged() {
    Engine e = makeEngine();
    Job held = job(1, 2);
    held.held = true;
    QVERIFY(e.submit(held));
    QVERIFY(e.submit(job(2, 4, "nlp")));
    QVERIFY(e.advanceTo(60));
    e.runCycle();
    QCOMPARE(stateOf(e, 2), JobState::Running);
    const Snapshot before = Snapshot::of(e);
    QCOMPARE(before.freeGpus, 4);

    auto r = execute(e, cmd::Release{1}, "alice", true);
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QVERIFY(!r->applied);
    QCOMPARE(r->impact.started, std::vector<JobId>{1});
    QVERIFY(r->impact.preempted.empty());
    QVERIFY2(q(r->message).startsWith("dry run: job 1 released; 1 job(s) would start (1)"),
             r->message.english().c_str());
    QVERIFY(Snapshot::of(e) == before);
    QVERIFY(e.job(1)->job.held);

    // A new job: predicted to start, not there afterwards.
    r = execute(e, cmd::Submit{job(10, 1)}, "alice", true);
    QVERIFY(r);
    QCOMPARE(r->impact.started, std::vector<JobId>{10});
    QCOMPARE(e.job(10), nullptr);
    QVERIFY(Snapshot::of(e) == before);

    // Cancelling the running job: it stops in the prediction only.
    r = execute(e, cmd::Cancel{2}, "alice", true);
    QVERIFY(r);
    QCOMPARE(r->impact.stopped, std::vector<JobId>{2});
    QCOMPARE(stateOf(e, 2), JobState::Running);
    QVERIFY(Snapshot::of(e) == before);

    // A refused dry run records nothing either.
    r = execute(e, cmd::Hold{2}, "alice", true);
    QVERIFY(!r);
    QVERIFY(Snapshot::of(e) == before);
  }

  // With preemption on, a verdict is kept per (shape, team, priority): who asks decides whom
  // it may evict. A failed placement does not depend on who asks, so the search runs once per
  // shape; each requester still gets its own preemption step.
  void aFailedPlacementIsSearchedOncePerShape() {
    Policy p;
    p.backfill.plugin = "none";  // reservations would reset the cache between jobs
    Engine e = makeEngine(tenants(), p);
    Job big = job(1, 4, "vision", "serving");
    big.estimatedRuntime = 7200;
    QVERIFY(e.submit(big));
    QVERIFY(e.submit(job(2, 4, "nlp", "serving")));
    e.runCycle();
    QCOMPARE(e.state().freeWholeGpus(), 0);  // serving jobs nobody below may evict
    JobId id = 10;
    for (const char* team : {"vision", "nlp"})
      for (const char* cls : {"experiment", "spot", "production-training"})
        QVERIFY(e.submit(job(id++, 2, team, cls)));
    const CycleStats st = e.runCycle();
    QCOMPARE(st.considered, 6);
    QCOMPARE(st.started, 0);
    QCOMPARE(st.placements, 1);      // six requesters, one search
    QCOMPARE(st.shapeCacheHits, 5);  // not vacuous: all six went through the pass
    const Text first = e.job(10)->reason;
    QVERIFY(!first.empty());
    for (JobId j = 11; j < id; ++j) {
      QCOMPARE(e.job(j)->state, JobState::Pending);
      QCOMPARE(q(e.job(j)->reason), q(first));
    }
  }

  // Dry runs are what-ifs on the engine itself, undone as a whole: every kind of command, with
  // the cycle after it, leaves the engine deciding exactly as a copy taken before them does.
  void aWhatIfPutsEverythingBack() {
    Workload w = tenants();
    w.teams[0].quotas["*"] = Quota{6, 2, -1};
    Policy p;
    p.checkInvariants = true;
    Engine e = makeEngine(w, p);
    QVERIFY(e.submit(job(1, 4)));
    QVERIFY(e.submit(job(2, 4, "nlp")));
    Job gang = job(3, 4, "nlp");
    gang.tasks = 2;  // all 8 GPUs: waits with a backfill reservation
    QVERIFY(e.submit(gang));
    QVERIFY(e.submit(job(4, 1)));
    Job held = job(5, 2);
    held.held = true;
    QVERIFY(e.submit(held));
    QVERIFY(e.advanceTo(60));
    e.runCycle();
    QCOMPARE(stateOf(e, 1), JobState::Running);
    QVERIFY(e.job(3)->eta.has_value());  // not vacuous: the plan is part of what must come back
    const Engine twin = e;
    const std::string before = fingerprint(e);

    Job fresh = job(20, 2);
    Quota bigger{8, 0, -1};
    const std::vector<Command> commands = {
        cmd::Cancel{1},
        cmd::Release{5},
        cmd::Preempt{2},
        cmd::Submit{fresh},
        cmd::Hold{4},
        cmd::SetPriority{4, "production-training"},
        cmd::Move{4, cmd::Move::To::Top, kNoJob},
        cmd::Drain{"h1", {}},
        cmd::SetQuota{"vision", "*", bigger},
        cmd::Pin{4, {"h2/0"}, {}},
        cmd::CreateReservation{"maint", {"h2"}, 100, 5000, ""},
    };
    for (const Command& c : commands) {
      const auto r = execute(e, c, "alice", true);
      QVERIFY2(r, r ? "" : r.error().str().c_str());
      QVERIFY(!r->applied);
      QCOMPARE(fingerprint(e), before);
    }
    // A command that fails half-way is undone too.
    QVERIFY(!execute(e, cmd::Cancel{99}, "alice", true));
    QCOMPARE(fingerprint(e), before);
    // Not vacuous: the predictions saw the changes (a cancel frees GPUs the queue takes).
    const auto cancel = execute(e, cmd::Cancel{1}, "alice", true);
    QCOMPARE(cancel->impact.stopped, std::vector<JobId>{1});
    QVERIFY(!cancel->impact.started.empty());

    Engine copy = twin;
    for (Seconds t : {600, 3700, 7300}) {
      QVERIFY(e.advanceTo(t));
      QVERIFY(copy.advanceTo(t));
      e.runCycle();
      copy.runCycle();
      QCOMPARE(fingerprint(e), fingerprint(copy));
    }
  }

  void appliedCommandIsAudited() {
    Engine e = makeEngine();
    QVERIFY(e.submit(job(1, 1)));
    const size_t before = e.events().size();
    auto r = execute(e, cmd::Hold{1}, "alice", false);
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QVERIFY(r->applied);
    QCOMPARE(q(r->message), QString("job 1 held"));
    QVERIFY(e.job(1)->job.held);
    QCOMPARE(e.events().size(), before + 2);
    const Event& held = e.events()[before];
    QCOMPARE(held.kind, EventKind::Held);
    QCOMPARE(q(held.actor), QString("alice"));
    QCOMPARE(q(held.reason), QString("held by alice"));
    const Event& audit = e.events().back();
    QCOMPARE(audit.kind, EventKind::Command);
    QCOMPARE(q(audit.actor), QString("alice"));
    QCOMPARE(audit.job, kNoJob);
    QCOMPARE(q(audit.reason), QString("hold job 1: applied: job 1 held"));
    // A refused command is audited as refused and changes nothing else.
    r = execute(e, cmd::Hold{1}, "bob", false);
    QVERIFY(!r);
    QCOMPARE(q(r.error().message), QString("job 1 is already held"));
    QCOMPARE(e.events().size(), before + 3);
    QCOMPARE(e.events().back().kind, EventKind::Command);
    QCOMPARE(q(e.events().back().actor), QString("bob"));
    QCOMPARE(q(e.events().back().reason), QString("hold job 1: refused: job 1 is already held"));
    checkSeqHasNoGaps(e);
  }

  // An applied command runs no cycle: it reports what it did itself, and the GPUs it frees go
  // to the queue at the next cycle, as its dry run predicted.
  void anAppliedCommandLeavesStartsToTheNextCycle() {
    Engine e = makeEngine();
    QVERIFY(e.submit(job(1, 4)));
    QVERIFY(e.submit(job(3, 4)));
    e.runCycle();
    QVERIFY(e.submit(job(2, 4)));  // the cluster's 8 GPUs are taken
    e.runCycle();
    QCOMPARE(stateOf(e, 2), JobState::Pending);
    const auto predicted = execute(e, cmd::Cancel{1}, "alice", true);
    QVERIFY(predicted);
    QCOMPARE(predicted->impact.started, std::vector<JobId>{2});

    const uint64_t cycles = e.stats().cycles;
    const auto r = execute(e, cmd::Cancel{1}, "alice", false);
    QVERIFY2(r, r ? "" : r.error().str().c_str());
    QVERIFY(r->applied);
    QCOMPARE(r->impact.stopped, std::vector<JobId>{1});
    QVERIFY(r->impact.started.empty());
    QCOMPARE(e.stats().cycles, cycles);
    QCOMPARE(stateOf(e, 1), JobState::Cancelled);
    QCOMPARE(stateOf(e, 2), JobState::Pending);
    e.runCycle();
    QCOMPARE(stateOf(e, 2), JobState::Running);
    checkSeqHasNoGaps(e);
  }

  // Pins given with the job (workload files, exports) are resolved and checked at submit.
  void pinsAtSubmit() {
    Engine e = makeEngine();
    Job unknown = job(1, 1);
    unknown.pinGpus = {"h1/0", "nowhere/3"};
    auto r = e.submit(unknown);
    QVERIFY(!r);
    QCOMPARE(q(r.error().message), QString("job 1: pin names unknown GPU 'nowhere/3'"));
    Job small = job(2, 4);
    small.pinGpus = {"h1/0", "h1/1"};
    r = e.submit(small);
    QVERIFY(!r);
    QCOMPARE(q(r.error().message), QString("job 2 needs 4 GPUs; the pin names 2"));
    QVERIFY(!e.job(1) && !e.job(2));
    Job whole = job(3, 2);
    whole.pinNodes = {"h2"};
    QVERIFY(e.submit(whole));
    e.runCycle();
    QCOMPARE(stateOf(e, 3), JobState::Running);
    for (const auto& t : e.job(3)->placement->tasks)
      QCOMPARE(q(e.cluster().node(t.node).name), QString("h2"));
  }

  // A pin that cannot hold the whole gang is refused instead of leaving the job waiting forever.
  void pinTooSmallIsRefused() {
    Engine e = makeEngine();
    QVERIFY(e.submit(job(1, 4)));
    auto r = execute(e, cmd::Pin{1, {"h1/0", "h1/1"}, {}}, "alice", false);
    QVERIFY(!r);
    QCOMPARE(q(r.error().where.field), QString("gpus"));
    QCOMPARE(q(r.error().message), QString("job 1 needs 4 GPUs; the pin names 2"));
    QVERIFY(e.job(1)->pinned.empty());
    QVERIFY(execute(e, cmd::Pin{1, {"h1/0", "h1/1", "h1/2", "h1/3"}, {}}, "alice", false));
    QCOMPARE(e.job(1)->pinned.size(), size_t{4});
  }

  void invalidCommandsNameTheField() {
    Engine e = makeEngine();
    QVERIFY(e.submit(job(1, 1)));
    const Snapshot before = Snapshot::of(e);
    struct Case {
      Command command;
      const char* field;
      const char* message;
    };
    const std::vector<Case> cases{
        {cmd::Pin{1, {"h1/9"}, {}}, "gpus[0]", "unknown GPU 'h1/9' (expected node/index)"},
        {cmd::Pin{1, {"h1/0", "zz/1"}, {}}, "gpus[1]", "unknown GPU 'zz/1' (expected node/index)"},
        {cmd::Pin{1, {}, {"h2", "h9"}}, "nodes[1]", "unknown node 'h9'"},
        {cmd::Repartition{"h1/0", "3g.40gb", false}, "gpu", "GPU h1/0 is not in MIG mode"},
        {cmd::Repartition{"h7/0", "3g.40gb", false}, "gpu",
         "unknown GPU 'h7/0' (expected node/index)"},
        {cmd::Drain{"h9", literal("psu")}, "node", "unknown node 'h9'"},
        {cmd::Undrain{"h1"}, "node", "node h1 is not drained"},
    };
    for (const auto& c : cases) {
      for (bool dryRun : {true, false}) {
        const size_t events = e.events().size();
        auto r = execute(e, c.command, "alice", dryRun);
        QVERIFY2(!r, describe(c.command).c_str());
        QCOMPARE(q(r.error().where.field), QString(c.field));
        QCOMPARE(q(r.error().message), QString(c.message));
        // Only the audit of a refused (applied) command is added.
        QCOMPARE(e.events().size(), events + (dryRun ? 0 : 1));
      }
    }
    QVERIFY(e.job(1)->pinned.empty());
    QCOMPARE(e.state().nodeState(cluster()->findNode("h1")->id), NodeState::Up);
    QCOMPARE(stateOf(e, 1), std::get<1>(before.jobs[0]));
    QCOMPARE(e.state().freeWholeGpus(), before.freeGpus);
  }

  // Running jobs accrue GPU-seconds to their team; the policy's half-life decays them.
  void fairShareUsageFromRunningJobs() {
    Policy p;
    p.fairShare.halfLife = 3600;
    Engine e = makeEngine(tenants(), p);
    QVERIFY(e.submit(job(1, 2)));
    e.runCycle();
    QCOMPARE(stateOf(e, 1), JobState::Running);
    QVERIFY(e.advanceTo(60));
    // 2 GPUs for 60 s, each second decayed from when it was used until t=60:
    // 2 x integral_0^60 2^(-(60-t)/3600) dt = 2 x 3600/ln2 x (1 - 2^(-60/3600)) ~ 119.31
    // (a little under the undecayed 120).
    const double accrued = 2.0 * 3600.0 / std::log(2.0) * (1.0 - std::exp2(-60.0 / 3600.0));
    QVERIFY(accrued < 120.0 && accrued > 119.0);
    QCOMPARE(e.fairShare().usage(0), accrued);
    QCOMPARE(e.fairShare().usage(1), 0.0);
    QVERIFY(e.context().fairShareFactor[0] < e.context().fairShareFactor[1]);
    QCOMPARE(e.context().fairShareFactor[1], 1.0);
    QVERIFY(e.complete(1));
    QVERIFY(e.advanceTo(60 + 3600));  // one half-life, nothing running
    QCOMPARE(e.fairShare().usage(0), accrued / 2);
    // nlp, having used nothing, now goes ahead of vision at equal priority and submit time.
    QVERIFY(e.submit(job(2, 4, "vision")));  // both pending: no cycle has run since
    QVERIFY(e.submit(job(3, 4, "nlp")));
    const auto queue = e.queue();
    QCOMPARE(queue.size(), size_t{2});
    QCOMPARE(queue[0]->job.id, JobId{3});
  }

  // A move before another job writes the moved job alone (ranks have gaps), and successive moves
  // before the same job keep landing just ahead of it; when they have halved the gap to nothing,
  // the ranks from the target's on are shifted (every such job reported as touched) and the order
  // still comes out as if each move had stepped the rest back.
  void moveBeforeWritesOneJobUntilItsGapCloses() {
    Engine e = makeEngine();
    constexpr JobId kJobs = 200;
    for (JobId id = 1; id <= kJobs; ++id) QVERIFY(e.submit(job(id, 4)).ok());
    const auto order = [&e] {
      std::vector<JobId> ids;
      for (const JobRecord* r : e.queue()) ids.push_back(r->job.id);
      return ids;
    };
    std::vector<JobId> expected = order();
    QCOMPARE(expected.front(), JobId{1});  // not vacuous: submission order first
    // Everyone has rank 0, so "before 100" is ahead of its whole rank: the top of the band.
    const auto first = execute(e, cmd::Move{150, cmd::Move::To::Before, 100}, "alice", false);
    QVERIFY2(first, first ? "" : first.error().str().c_str());
    QCOMPARE(first->touched.jobs, std::vector<JobId>{150});
    std::erase(expected, JobId{150});
    expected.insert(expected.begin(), 150);
    QCOMPARE(order(), expected);
    int shifts = 0;
    for (JobId id = 160; id < 190; ++id) {
      const auto r = execute(e, cmd::Move{id, cmd::Move::To::Before, 100}, "alice", false);
      QVERIFY2(r, r ? "" : r.error().str().c_str());
      if (r->touched.jobs.size() > 1) {
        ++shifts;
        // The moved job and every job ranked as job 100 was: the 169 still at rank 0.
        QCOMPARE(r->touched.jobs.size(), size_t{1 + kJobs - 1 - (id - 160) - 1});
      }
      std::erase(expected, id);
      expected.insert(expected.begin() + static_cast<std::ptrdiff_t>(id - 159),
                      id);  // behind 150, 160, ..., id - 1
      QCOMPARE(order(), expected);
    }
    QCOMPARE(shifts, 1);  // twenty halvings of 2^20, then one shift
  }

  // Slurm's bf_interval: between plans the last plan's reservations hold and no new ones are made.
  void backfillPlansOnItsInterval() {
    auto policy = loadPolicy("version: 1\nbackfill: {interval: 10m}\n", "p.yaml");
    QVERIFY2(policy.ok(), policy.ok() ? "" : policy.error().str().c_str());
    QCOMPARE(policy->backfill.interval, Seconds{600});
    QVERIFY(writePolicy(*policy).find("interval: 600") != std::string::npos);
    QVERIFY(!loadPolicy("version: 1\nbackfill: {interval: -5}\n", "p.yaml").ok());
    Engine e = makeEngine(tenants(), *policy);
    QVERIFY(e.submit(job(1, 4)).ok());  // with job 10: all 8 GPUs for an hour
    QVERIFY(e.submit(job(10, 4)).ok());
    QVERIFY(e.advanceTo(1).ok());
    QVERIFY(e.runCycle().backfillPlanned);
    QVERIFY(e.submit(job(2, 4)).ok());
    QVERIFY(e.advanceTo(2).ok());
    const CycleStats planned = e.runCycle();  // 2 s after the last plan: not planned again...
    QVERIFY(!planned.backfillPlanned);
    QVERIFY(!e.job(2)->eta);  // ...so job 2 has no reservation yet
    QVERIFY(e.advanceTo(601).ok());
    QVERIFY(e.runCycle().backfillPlanned);
    QVERIFY2(e.job(2)->eta.has_value(), e.job(2)->reason.english().c_str());
    const Seconds eta = *e.job(2)->eta;  // when job 1 ends (to the policy's 60 s resolution)
    QVERIFY2(eta >= 3601 && eta < 3601 + 60, std::to_string(eta).c_str());
    QVERIFY(e.submit(job(3, 4)).ok());
    QVERIFY(e.advanceTo(700).ok());
    QVERIFY(!e.runCycle().backfillPlanned);
    QCOMPARE(e.job(2)->eta, std::optional<Seconds>{eta});  // the plan holds between plans
    QVERIFY(e.reservations().find("bf-2") != nullptr);
    QVERIFY(!e.job(3)->eta);
    QVERIFY(e.cancel(2, "alice", literal("no longer needed")).ok());
    QVERIFY(e.advanceTo(800).ok());
    e.runCycle();
    QVERIFY(e.reservations().find("bf-2") == nullptr);  // a job that left loses its hold
  }

  void invariantsHoldAcrossCycles() {
    Workload w = tenants();
    w.teams[0].quotas["*"] = Quota{4, 4, -1};
    w.teams[1].quotas["*"] = Quota{4, 4, -1};
    Policy p;
    p.checkInvariants = true;
    Engine e = makeEngine(w, p);
    const int sizes[] = {4, 2, 2, 1, 3, 1, 2, 4};
    JobId id = 1;
    for (int s : sizes) {
      Job j = job(id, s, id % 2 ? "vision" : "nlp");
      j.submitTime = Seconds(id) * 50;
      QVERIFY(e.submit(j));
      ++id;
    }
    Job gang = job(id, 4, "nlp");
    gang.tasks = 2;
    gang.submitTime = 120;
    QVERIFY(e.submit(gang));
    uint64_t started = 0;
    for (int step = 0; step < 40; ++step) {
      QVERIFY(e.advanceTo(Seconds(step) * 100));
      const auto st = e.runCycle();
      QVERIFY2(st.invariantViolations.empty(), joined(st.invariantViolations).c_str());
      started += static_cast<uint64_t>(st.started);
      const auto violations = e.invariantViolations();
      QVERIFY2(violations.empty(), joined(violations).c_str());
      // Every other step, the oldest running job finishes.
      if (step % 2 == 1)
        if (const auto running = e.running(); !running.empty())
          QVERIFY(e.complete(running.front()->job.id));
    }
    // Not vacuous: all nine jobs ran (preempted ones may have started twice), and finished.
    QVERIFY(started >= 9);
    for (const JobRecord* r : e.jobs()) QCOMPARE(r->state, JobState::Completed);
    QVERIFY(e.invariantViolations().empty());
  }

  // A long-running backend drops finished jobs and old events from memory (the database keeps
  // them): the active jobs' records, their order, queue positions, running slots and expected
  // ends must come through whole, and the event log's numbers go on.
  void forgettingHistoryKeepsTheActiveJobsWhole() {
    Policy p;
    p.checkInvariants = true;
    Engine e = makeEngine(tenants(), p);
    for (JobId id = 1; id <= 6; ++id) {
      Job j = job(id, 2);
      j.estimatedRuntime = 1000 * id;  // distinct expected ends
      QVERIFY(e.submit(j));
    }
    QCOMPARE(e.runCycle().started, 4);  // 1-4 run, 5 and 6 wait
    QVERIFY(e.advanceTo(100));
    QVERIFY(e.complete(1));
    QVERIFY(e.complete(3));
    QCOMPARE(e.finishedInMemory(), size_t{2});
    const auto placementOf = [&e](JobId id) { return e.job(id)->placement->tasks.front().gpus; };
    const auto gpusOf2 = placementOf(2), gpusOf4 = placementOf(4);
    const int position5 = e.queuePosition(*e.job(5)), position6 = e.queuePosition(*e.job(6));
    QCOMPARE(position5, 1);
    QCOMPARE(position6, 2);
    const uint64_t events = e.eventCount();

    const auto gone = e.forgetHistory(101, 3);
    QCOMPARE(gone.jobs, size_t{2});
    QCOMPARE(gone.events, size_t(events - 3));
    QVERIFY(!e.job(1) && !e.job(3));
    QCOMPARE(e.finishedInMemory(), size_t{0});
    QCOMPARE(e.jobs().size(), size_t{4});
    QCOMPARE(e.eventCount(), events);
    QCOMPARE(e.firstEvent(), events - 3);
    QVERIFY(!e.eventAt(events - 4));
    QCOMPARE(e.eventAt(events - 1)->seq, events);
    QCOMPARE(placementOf(2), gpusOf2);
    QCOMPARE(placementOf(4), gpusOf4);
    QCOMPARE(e.queuePosition(*e.job(5)), position5);
    QCOMPARE(e.queuePosition(*e.job(6)), position6);
    for (const auto& end : e.runningByEnd()) QCOMPARE(e.jobAt(end.index).job.id, end.id);
    QVERIFY2(e.invariantViolations().empty(), joined(e.invariantViolations()).c_str());

    // The engine goes on as if it had never held them: 5 and 6 take the freed GPUs, a running
    // job completes from its remapped slot, and new events continue the numbering.
    const auto st = e.runCycle();
    QCOMPARE(st.started, 2);
    QVERIFY2(st.invariantViolations.empty(), joined(st.invariantViolations).c_str());
    QVERIFY(e.complete(2));
    std::vector<JobId> running;
    for (const JobRecord* r : e.running()) running.push_back(r->job.id);
    std::sort(running.begin(), running.end());
    QCOMPARE(running, (std::vector<JobId>{4, 5, 6}));
    QCOMPARE(e.events().back().seq, e.eventCount());
    QVERIFY(e.eventCount() > events);
    // An explanation shows what is still in memory of the job's history.
    const auto x = explain(e, 5);
    QVERIFY(x);
    QCOMPARE(x->state, JobState::Running);
    QVERIFY(!x->history.empty());
    QVERIFY(x->history.size() < e.job(5)->eventIndex.size());
  }
};

QTEST_APPLESS_MAIN(TstEngine)
#include "tst_engine.moc"
