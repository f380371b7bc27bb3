// The discrete-event simulator on the real engine: hand-computed small runs (start and end times,
// waits, allocation), preemption with a grace period, node failures, GPU faults, MIG
// reconfiguration time, operator actions and time limits; determinism; telemetry; metrics;
// what-if forks; the synthetic generator and the scheduled-events file.
#include <QtTest>

#include <cmath>
#include <sstream>

#include "clusterspec/cluster_spec.h"
#include "scheduler/command.h"
#include "sim/simulator.h"
#include "sim/synthetic.h"
#include "sim/whatif.h"
#include "trace_test_util.h"

using namespace tessera;
using tessera::test::traceOf;

namespace {

// One node of 2 H100s (16 CPUs) and one A100 node with 2 MIG GPUs.
std::shared_ptr<const Cluster> cluster() {
  static const std::shared_ptr<const Cluster> c = [] {
    auto loaded = loadClusterSpec(R"(version: 1
name: sim
node_templates:
  h100: {gpu_model: H100-SXM5-80GB, gpus: 2, cpus: 16, memory_gib: 256}
  a100: {gpu_model: A100-SXM4-80GB, gpus: 2, cpus: 32, memory_gib: 256}
fabric:
  leafs: [{name: leaf-1}]
nodes:
  - {name: h1, template: h100, leaf: leaf-1}
  - name: m1
    template: a100
    leaf: leaf-1
    gpus:
      "0-1": {mig: "7g.80gb"}
)",
                                  "sim.yaml");
    if (!loaded) qFatal("%s", loaded.error().str().c_str());
    return *loaded;
  }();
  return c;
}

TraceJob wholeJob(JobId id, Seconds submit, int gpus, Seconds runtime,
                  const char* cls = "experiment") {
  TraceJob t;
  t.job.id = id;
  t.job.team = "vision";
  t.job.priorityClass = cls;
  t.job.perTask = {GpuRequest::Kind::Whole, gpus, {}, 0, 0};
  t.job.submitTime = submit;
  t.job.estimatedRuntime = runtime;
  t.runtime = runtime;
  return t;
}

SimConfig fastConfig() {
  SimConfig c;
  c.cycleInterval = 1;
  c.idleCycleInterval = 1;
  c.sampleInterval = 10;
  c.preemptionGrace = 0;
  c.checkInvariants = true;
  return c;
}

Simulator simulate(Trace trace, SimConfig config = fastConfig(),
                   std::vector<ScheduledEvent> events = {}, Policy policy = {}) {
  auto engine = engineForTrace(cluster(), trace, std::move(policy));
  if (!engine) qFatal("%s", engine.error().str().c_str());
  Simulator sim(std::move(*engine), std::move(trace), config, std::move(events));
  const Status s = sim.run();
  if (!s) qFatal("%s", s.error().str().c_str());
  return sim;
}

const JobOutcome& outcome(const std::vector<JobOutcome>& all, JobId id) {
  for (const auto& o : all)
    if (o.id == id) return o;
  qFatal("no outcome for job %llu", static_cast<unsigned long long>(id));
}

Policy preemptingPolicy() {
  return Policy{};  // checkpoint-aware preemption is on by default
}

ScheduledEvent at(Seconds t, ClusterEvent e) {
  return {t, std::move(e), "", 0};
}

}  // namespace

class TstSimulator : public QObject {
  Q_OBJECT

 private slots:
  // A MIG job's GPU equivalents are its profile's share of the GPU it runs on, as the accounting
  // charges them: 7g.80gb on an A100 is a whole GPU per task (not 1/7), 3g.40gb is 3/7, whether
  // it ran or not. So --jobs-csv's gpus column and gpu_hours_used agree.
  void migJobsCountTheirProfilesShare() {
    TraceJob big = wholeJob(1, 0, 0, 100);
    big.job.tasks = 2;
    big.job.perTask = {GpuRequest::Kind::Mig, 0, "7g.80gb", 0, 0};
    TraceJob small = wholeJob(2, 0, 0, 100);
    small.job.perTask = {GpuRequest::Kind::Mig, 0, "3g.40gb", 0, 0};
    auto sim = simulate(traceOf({big, small}));
    const auto jobs = sim.outcomes();
    const JobOutcome& b = outcome(jobs, 1);
    QCOMPARE(b.firstStart, Seconds{0});
    QCOMPARE(b.gpus, 2.0);
    QVERIFY(std::abs(b.gpuHoursUsed - b.gpus * 100 / 3600.0) < 1e-9);
    QVERIFY(std::abs(outcome(jobs, 2).gpus - 3.0 / 7.0) < 1e-12);
    std::ostringstream csv;
    writeJobsCsv(csv, jobs);
    QVERIFY2(csv.str().find("\n1,vision,experiment,batch,2,") != std::string::npos,
             csv.str().c_str());
  }

  // Job 1 takes both H100s for 100 s; job 2 arrives at 10 s and must wait for them.
  void jobsWaitAndRunTheirRealRuntime() {
    auto sim = simulate(traceOf({wholeJob(1, 0, 2, 100), wholeJob(2, 10, 2, 50)}));
    const auto jobs = sim.outcomes();
    QCOMPARE(outcome(jobs, 1).firstStart, Seconds{0});
    QCOMPARE(outcome(jobs, 1).end, Seconds{100});
    QCOMPARE(outcome(jobs, 2).firstStart, Seconds{100});
    QCOMPARE(outcome(jobs, 2).end, Seconds{150});
    QCOMPARE(outcome(jobs, 2).state, JobState::Completed);
    const SimSummary s = sim.summary();
    QCOMPARE(s.completed, size_t{2});
    QCOMPARE(s.wait.max, 90.0);  // job 2: 10 -> 100
    QCOMPARE(s.jct.max, 140.0);  // job 2: 10 -> 150
    // GPU-hours: 2 GPUs x 100 s + 2 GPUs x 50 s.
    QVERIFY(std::abs(s.gpuHoursUsed - 300.0 / 3600.0) < 1e-9);
  }

  // Samples every 10 s over [0, 150]: both H100s held throughout; the 2 MIG GPUs idle.
  void allocationIsSampledOverTime() {
    auto sim = simulate(traceOf({wholeJob(1, 0, 2, 100), wholeJob(2, 10, 2, 50)}));
    const auto& samples = sim.metrics().samples();
    QVERIFY2(samples.size() >= 15, std::to_string(samples.size()).c_str());
    for (const auto& m : samples) {
      QCOMPARE(m.capacity, 4.0);
      if (m.time < 150) QCOMPARE(m.allocated, 2.0);
    }
    // Compute-bound jobs: busy below allocated, effective (SM active) below busy.
    const auto& mid = samples[5];
    QVERIFY(mid.busy > 1.0 && mid.busy <= 2.0);
    QVERIFY(mid.effective < mid.busy);
  }

  void sameInputsGiveTheSameLogHash() {
    auto make = [](uint64_t seed) {
      SyntheticConfig sc;
      sc.jobs = 150;
      sc.seed = seed;
      sc.arrivalsPerHour = 120;
      Trace t = *synthesize(*demoCluster(), sc);
      auto engine = engineForTrace(demoCluster(), t, preemptingPolicy());
      SimConfig c;
      c.seed = seed;
      Simulator sim(std::move(*engine), std::move(t), c);
      if (!sim.run()) qFatal("run failed");
      return sim.logHash();
    };
    QCOMPARE(make(7), make(7));
    QVERIFY(make(7) != make(8));
  }

  // A serving job preempts an experiment; the serving job's work begins after the grace period;
  // the victim keeps the work up to its last checkpoint and finishes later.
  void preemptionWaitsForTheGracePeriod() {
    TraceJob low = wholeJob(1, 0, 2, 1000);
    low.job.preemptible = true;
    low.job.checkpointInterval = 100;
    TraceJob high = wholeJob(2, 250, 2, 100, "serving");
    SimConfig c = fastConfig();
    c.preemptionGrace = 30;
    auto sim = simulate(traceOf({low, high}), c, {}, preemptingPolicy());
    const auto jobs = sim.outcomes();
    QCOMPARE(outcome(jobs, 2).firstStart, Seconds{250});
    QCOMPARE(outcome(jobs, 2).end, Seconds{250 + 30 + 100});
    QCOMPARE(outcome(jobs, 1).preemptions, 1);
    // Work to the checkpoint at 200 s is kept: 800 s remain after the restart at 380 s.
    QCOMPARE(outcome(jobs, 1).end, Seconds{380 + 800});
    QVERIFY(outcome(jobs, 1).gpuHoursLost > 0);
  }

  void nodeFailureRequeuesItsJobsUntilRepair() {
    simev::NodeFailure f{"h1", 500};
    auto sim = simulate(traceOf({wholeJob(1, 0, 2, 300)}), fastConfig(), {at(100, f)});
    const auto jobs = sim.outcomes();
    QCOMPARE(outcome(jobs, 1).interruptions, 1);
    QCOMPARE(outcome(jobs, 1).preemptions, 0);  // a failure is not the policy's preemption
    // Back at 600 s; no checkpoints: the whole 300 s run again.
    QCOMPARE(outcome(jobs, 1).end, Seconds{900});
    QVERIFY(!sim.log().empty());
    QVERIFY(sim.log().front().what.find("h1 failed") != std::string::npos);
  }

  void gpuFaultDrainsTheNodeAndRequeuesOnlyThatGpusJob() {
    simev::GpuFault f{"h1/1", 79, 400};
    auto sim = simulate(traceOf({wholeJob(1, 0, 1, 300), wholeJob(2, 0, 1, 300)}), fastConfig(),
                        {at(100, f)});
    const auto jobs = sim.outcomes();
    // One of the two jobs sat on GPU 1: it restarts when the node returns at 500 s.
    const JobOutcome& a = outcome(jobs, 1);
    const JobOutcome& b = outcome(jobs, 2);
    QCOMPARE(a.interruptions + b.interruptions, 1);
    const JobOutcome& hit = a.interruptions ? a : b;
    const JobOutcome& kept = a.interruptions ? b : a;
    QCOMPARE(kept.end, Seconds{300});
    QCOMPARE(hit.end, Seconds{500 + 300});
  }

  // The repartition drains the node for the reconfiguration time; MIG work waits for the new
  // layout's instances.
  // A node failure (repair 1000 s) and a GPU fault on the same node (repair 100 s): the node
  // stays down until the failure's repair is over.
  void overlappingRepairsKeepTheNodeOutUntilTheLast() {
    simev::NodeFailure f{"h1", 1000};
    simev::GpuFault x{"h1/0", 79, 100};
    auto sim =
        simulate(traceOf({wholeJob(1, 150, 2, 100)}), fastConfig(), {at(100, f), at(200, x)});
    QCOMPARE(outcome(sim.outcomes(), 1).firstStart, Seconds{1100});
  }

  // Two failures of one node share the failure's hold: the earlier repair (at 600) must not
  // return a node the later failure (repair at 1300) still keeps down.
  void aSecondFailureExtendsTheFirst() {
    simev::NodeFailure first{"h1", 500}, second{"h1", 1000};
    auto sim = simulate(traceOf({wholeJob(1, 150, 2, 100)}), fastConfig(),
                        {at(100, first), at(300, second)});
    QCOMPARE(outcome(sim.outcomes(), 1).firstStart, Seconds{1300});
  }

  // Why the node is out, while the simulator holds it: its own reasons are sentences the console
  // translates; an operator's drain meanwhile is theirs, and what the node returns with.
  void aHeldNodeSaysWhyAndReturnsWithTheOperatorsReason() {
    auto engine = engineForTrace(cluster(), traceOf({}), {});
    QVERIFY(engine);
    const NodeId h1 = engine->cluster().findNode("h1")->id;
    Command drain = cmd::Drain{"h1", literal("psu swap")};
    Simulator sim(
        std::move(*engine), traceOf({wholeJob(1, 5000, 1, 10)}), fastConfig(),
        {at(100, simev::NodeFailure{"h1", 1000}), at(200, simev::GpuFault{"h1/0", 79, 100}),
         at(400, simev::Operator{drain, "alice"})});
    QVERIFY(sim.runUntil(150));
    QVERIFY(sim.engine().nodeReason(h1) == phrase(text::kOutNodeFailure));
    QVERIFY(sim.runUntil(500));  // still failed: down, with the operator's reason
    QCOMPARE(sim.engine().state().nodeState(h1), NodeState::Down);
    QVERIFY(sim.engine().nodeReason(h1) == literal("psu swap"));
    QVERIFY(sim.runUntil(1200));  // the failure is repaired; the operator keeps it out
    QCOMPARE(sim.engine().state().nodeState(h1), NodeState::Draining);
    QVERIFY(sim.engine().nodeReason(h1) == literal("psu swap"));
  }

  // A drain without a reason of a failed node: down with the failure's reason until the repair,
  // then drained.
  void aFailedNodeDrainedWithoutAReasonKeepsTheFailure() {
    auto engine = engineForTrace(cluster(), traceOf({}), {});
    QVERIFY(engine);
    const NodeId h1 = engine->cluster().findNode("h1")->id;
    Simulator sim(std::move(*engine), traceOf({wholeJob(1, 5000, 1, 10)}), fastConfig(),
                  {at(100, simev::NodeFailure{"h1", 1000}),
                   at(400, simev::Operator{cmd::Drain{"h1", {}}, "alice"})});
    QVERIFY(sim.runUntil(500));
    QCOMPARE(sim.engine().state().nodeState(h1), NodeState::Down);
    QVERIFY(sim.engine().nodeReason(h1) == phrase(text::kOutNodeFailure));
    QVERIFY(sim.runUntil(1200));
    QCOMPARE(sim.engine().state().nodeState(h1), NodeState::Draining);
    QVERIFY(sim.engine().nodeReason(h1).empty());
  }

  // Only a job that can never start waits; a free GPU's job arriving later starts within the
  // cycle interval, not at the next idle heartbeat.
  void theCycleIntervalHoldsWhileWorkWaits() {
    SimConfig c = fastConfig();
    c.cycleInterval = 30;
    c.idleCycleInterval = 300;
    TraceJob never = wholeJob(1, 0, 2, 100);  // held for good: work that waits
    never.job.held = true;
    auto sim = simulate(traceOf({never, wholeJob(2, 100, 1, 50)}), c);
    QVERIFY(outcome(sim.outcomes(), 2).firstStart <= 130);
    QCOMPARE(outcome(sim.outcomes(), 1).firstStart, Seconds{-1});
  }

  // Work without a runtime never ends; the run still does, with the job reported running.
  void aRunEndsEvenWithWorkThatNeverEnds() {
    TraceJob t = wholeJob(1, 0, 1, 100);
    auto engine = engineForTrace(cluster(), traceOf({}), {});
    t.job.estimatedRuntime.reset();
    QVERIFY(engine->submit(t.job).ok());
    engine->runCycle();
    Simulator sim(std::move(*engine), traceOf({wholeJob(2, 10, 1, 50)}), fastConfig());
    QVERIFY(sim.run().ok());
    QCOMPARE(sim.engine().job(1)->state, JobState::Running);
    QCOMPARE(sim.engine().job(3)->state, JobState::Completed);  // trace job 2, renumbered
    QVERIFY(sim.now() < 1000);
  }

  // A draining node still runs its jobs: allocation never exceeds capacity.
  void drainingNodesStayInCapacity() {
    Command drain = cmd::Drain{"h1", literal("test")};
    auto sim = simulate(traceOf({wholeJob(1, 0, 2, 100)}), fastConfig(),
                        {at(20, simev::Operator{drain, "alice"})});
    for (const auto& m : sim.metrics().samples()) QVERIFY(m.allocated <= m.capacity);
  }

  // GPUs free while every waiting job is held back by its quota are stranded by quota.
  void quotaStrandingIsRecognized() {
    Trace t = traceOf({wholeJob(1, 0, 1, 1000), wholeJob(2, 5, 1, 100)});
    t.teams[0].quotas["*"] = Quota{1, 0, 0};
    auto sim = simulate(t);
    double quota = 0;
    for (const auto& m : sim.metrics().samples())
      if (m.time > 10 && m.time < 1000)
        quota = std::max(quota, m.stranded[size_t(StrandCause::Quota)]);
    QCOMPARE(quota, 1.0);  // h1's second GPU; the MIG GPUs suit no waiting job
  }

  void migReconfigurationTakesTime() {
    TraceJob inf;
    inf.job.id = 1;
    inf.job.team = "nlp";
    inf.job.priorityClass = "serving";
    inf.job.perTask = {GpuRequest::Kind::Mig, 0, "3g.40gb", 0, 0};
    inf.job.submitTime = 50;
    inf.job.estimatedRuntime = 100;
    inf.runtime = 100;
    SimConfig c = fastConfig();
    c.migReconfigTime = 120;
    simev::MigReconfigure m{"m1/0", "3g.40gb@0,3g.40gb@4"};
    auto sim = simulate(traceOf({inf}), c, {at(10, m)});
    const auto jobs = sim.outcomes();
    QCOMPARE(outcome(jobs, 1).firstStart, Seconds{130});
    QCOMPARE(outcome(jobs, 1).end, Seconds{230});
  }

  void operatorActionsRunAtTheirTime() {
    Command hold = cmd::Hold{2};
    Command release = cmd::Release{2};
    auto sim = simulate(
        traceOf({wholeJob(1, 0, 1, 100), wholeJob(2, 0, 1, 100)}), fastConfig(),
        {at(0, simev::Operator{hold, "alice"}), at(400, simev::Operator{release, "alice"})});
    const auto jobs = sim.outcomes();
    QCOMPARE(outcome(jobs, 1).firstStart, Seconds{0});
    QCOMPARE(outcome(jobs, 2).firstStart, Seconds{400});
    bool audited = false;
    for (const Event& e : sim.engine().events())
      audited = audited || (e.kind == EventKind::Command && e.actor == "alice");
    QVERIFY(audited);
  }

  void aJobPastItsTimeLimitIsStopped() {
    TraceJob t = wholeJob(1, 0, 1, 500);
    t.job.estimatedRuntime = 200;
    auto sim = simulate(traceOf({t}));
    const auto jobs = sim.outcomes();
    QCOMPARE(outcome(jobs, 1).end, Seconds{200});
    QCOMPARE(outcome(jobs, 1).state, JobState::Failed);
  }

  // Free GPUs on a node without the CPUs the waiting job needs are stranded by host resources.
  void strandedGpusAreAttributedToTheirCause() {
    TraceJob cpuHog = wholeJob(1, 0, 1, 1000);
    cpuHog.job.cpusPerTask = 16;  // all of h1's CPUs
    TraceJob waiting = wholeJob(2, 5, 1, 100);
    waiting.job.cpusPerTask = 4;
    waiting.job.model.models = {"H100-SXM5-80GB"};
    auto sim = simulate(traceOf({cpuHog, waiting}));
    double hostStranded = 0;
    for (const auto& m : sim.metrics().samples())
      if (m.time > 10 && m.time < 1000)
        hostStranded = std::max(hostStranded, m.stranded[size_t(StrandCause::HostResources)]);
    QCOMPARE(hostStranded, 1.0);  // h1's second GPU
    QCOMPARE(outcome(sim.outcomes(), 2).firstStart, Seconds{1000});
  }

  // Three jobs whose every figure is known: waits 0/60/600 s, runtimes 100/5/1000 s.
  void summaryOfHandComputedOutcomes() {
    auto job = [](JobId id, const char* team, const char* cls, Seconds submit, Seconds start,
                  Seconds end, Seconds runtime, double gpuHours) {
      JobOutcome o;
      o.id = id;
      o.team = team;
      o.priorityClass = cls;
      o.submit = submit;
      o.firstStart = start;
      o.end = end;
      o.runtime = runtime;
      o.state = end >= 0 ? JobState::Completed : JobState::Running;
      o.gpuHoursUsed = gpuHours;
      return o;
    };
    const std::vector<JobOutcome> jobs{job(1, "a", "serving", 0, 0, 100, 100, 3),
                                       job(2, "a", "spot", 0, 60, 65, 5, 1),
                                       job(3, "b", "spot", 0, 600, 1600, 1000, 4)};
    const SimSummary s = summarize(MetricsRecorder{}, jobs, {{"a", 1.0}, {"b", 3.0}}, 0, 1600);
    QCOMPARE(s.completed, size_t{3});
    QCOMPARE(s.wait.max, 600.0);
    QCOMPARE(s.wait.p50, 60.0);
    QCOMPARE(s.waitByTeam.at("a").max, 60.0);
    QCOMPARE(s.waitByClass.at("spot").p50, 60.0);  // nearest rank of {60, 600}
    // Bounded slowdown: 100/100 = 1, 65/max(5,10) = 6.5, 1600/1000 = 1.6.
    QCOMPARE(s.slowdown.max, 6.5);
    QCOMPARE(s.slowdown.p50, 1.6);
    QCOMPARE(s.jct.max, 1600.0);
    // Fairness: team a used 4 of 8 GPU-hours but deserves 1/4 by weight.
    QCOMPARE(s.fairness.at("a").share, 0.5);
    QCOMPARE(s.fairness.at("a").deserved, 0.25);
    QCOMPARE(s.fairness.at("b").deserved, 0.75);
    std::ostringstream json, csv;
    writeSummaryJson(json, s);
    QVERIFY(json.str().find("\"deserved\": 0.75") != std::string::npos);
    writeJobsCsv(csv, jobs);
    QVERIFY(csv.str().find("\n3,b,spot,batch,0,0,600,1600,1000,completed,0,4,0,0,0\n") !=
            std::string::npos);
  }

  void percentilesUseNearestRank() {
    const Percentiles p = percentiles({5, 1, 4, 2, 3, 6, 7, 8, 9, 10});
    QCOMPARE(p.p50, 5.0);
    QCOMPARE(p.p95, 10.0);
    QCOMPARE(p.max, 10.0);
    QCOMPARE(p.mean, 5.5);
    QCOMPARE(percentiles({}).count, size_t{0});
  }

  void telemetryShowsTheUtilizationGap() {
    TelemetryModel m(3);
    for (Seconds t = 0; t < 3600; t += 600) {
      const JobTelemetry input = m.sample(1, UsageProfile::InputBound, t);
      QVERIFY(input.util > 0.75);
      QVERIFY(input.sm < 0.3);
      const JobTelemetry idle = m.sample(2, UsageProfile::IdleNotebook, t);
      QVERIFY(idle.util < 0.1);
      QVERIFY(idle.memory > 0.2);  // it still holds memory
      const JobTelemetry busy = m.sample(3, UsageProfile::ComputeBound, t);
      QVERIFY(busy.sm > 0.6 && busy.tensor <= busy.sm && busy.sm <= busy.util);
    }
    QCOMPARE(m.sample(1, UsageProfile::Inference, 120).util,
             TelemetryModel(3).sample(1, UsageProfile::Inference, 120).util);
  }

  void gpuTemperatureFollowsPower() {
    TelemetryModel m(3);
    for (Seconds t = 0; t < 7200; t += 300)
      for (GpuId g = 0; g < 16; ++g) {
        const double idle = m.temperatureC(g, TelemetryModel::kIdlePower, t);
        QVERIFY2(idle >= 30 && idle <= 35, std::to_string(idle).c_str());
        const double full = m.temperatureC(g, 1.0, t);
        QVERIFY2(full >= 80 && full <= 85, std::to_string(full).c_str());
        // Strictly warmer with more power for the same GPU and minute.
        double last = idle;
        for (double p : {0.3, 0.5, 0.7, 0.9, 1.0}) {
          const double c = m.temperatureC(g, p, t);
          QVERIFY(c > last);
          last = c;
        }
      }
    // Deterministic in (seed, GPU, minute), yet the noise differs between GPUs and minutes.
    QCOMPARE(m.temperatureC(5, 0.5, 600), TelemetryModel(3).temperatureC(5, 0.5, 630));
    QVERIFY(m.temperatureC(5, 0.5, 600) != m.temperatureC(6, 0.5, 600) ||
            m.temperatureC(5, 0.5, 600) != m.temperatureC(5, 0.5, 660));

    // Per GPU of a cluster: a busy compute-bound GPU runs hotter than an idle one, and idle
    // GPUs read the idle temperature rather than nothing.
    ClusterState state(cluster());  // h1: 2 whole H100s, m1: 2 MIG A100s, all idle
    QVERIFY(state.takeWholeGpu(0, 1).ok());
    const auto gpus = m.gpus(state, 600, [](JobId) { return UsageProfile::ComputeBound; });
    QCOMPARE(gpus.size(), cluster()->gpus().size());
    for (GpuId g = 0; g < gpus.size(); ++g) {
      QCOMPARE(gpus[g].temperatureC, m.temperatureC(g, gpus[g].value.power, 600));
      if (g == 0) {
        QVERIFY2(gpus[g].temperatureC > 65, std::to_string(gpus[g].temperatureC).c_str());
      } else {
        QCOMPARE(gpus[g].allocated, 0.0);
        QVERIFY2(gpus[g].temperatureC >= 30 && gpus[g].temperatureC <= 35,
                 std::to_string(gpus[g].temperatureC).c_str());
      }
    }
  }

  void whatIfForkLeavesTheOriginalUntouched() {
    Trace t = traceOf({wholeJob(1, 0, 2, 100), wholeJob(2, 10, 2, 100), wholeJob(3, 20, 2, 100)});
    auto base = engineForTrace(cluster(), t, {});
    QVERIFY(base.ok());
    const size_t eventsBefore = base->events().size();
    WhatIfChanges changes;
    changes.name = "more-h100";
    changes.addNodes = {{"h2", "h100", "leaf-1"}};
    auto r = runWhatIf(*base, t, fastConfig(), {}, changes);
    QVERIFY2(r.ok(), r.ok() ? "" : r.error().str().c_str());
    QCOMPARE(base->events().size(), eventsBefore);
    QCOMPARE(base->cluster().nodes().size(), size_t{2});
    // With a second H100 node, job 2 no longer waits for job 1.
    QVERIFY(r->variant.wait.max < r->baseline.wait.max);
    QVERIFY(r->baselineHash != r->variantHash);
    QVERIFY(whatIfTable(*r, changes.name).find("queue wait p95") != std::string::npos);
  }

  void whatIfCommandsAndPolicyApplyToTheForkOnly() {
    Trace t = traceOf({wholeJob(1, 0, 1, 100)});
    auto base = engineForTrace(cluster(), t, {});
    QVERIFY(base.ok());
    auto changes = loadWhatIf("name: drained\ncommands: [{drain: {node: h1}}]\n", "w.yaml");
    QVERIFY(changes.ok());
    auto fork = forkWithChanges(*base, *changes);
    QVERIFY(fork.ok());
    QCOMPARE(fork->state().nodeState(0), NodeState::Draining);
    QCOMPARE(base->state().nodeState(0), NodeState::Up);
    auto bad = loadWhatIf("commands: [{drain: {node: nowhere}}]\n", "w.yaml");
    QVERIFY(bad.ok());
    auto failed = forkWithChanges(*base, *bad);
    QVERIFY(!failed.ok());
    QVERIFY(failed.error().message.find("change 1") != std::string::npos);
    auto empty = loadWhatIf("name: x\n", "w.yaml");
    QVERIFY(!empty.ok());
  }

  void syntheticWorkloadFollowsItsConfig() {
    SyntheticConfig sc;
    sc.jobs = 2000;
    sc.arrivalsPerHour = 100;
    const Trace a = *synthesize(*demoCluster(), sc);
    QCOMPARE(a.jobs.size(), size_t{2000});
    const double hours = double(a.jobs.back().job.submitTime) / 3600.0;
    QVERIFY(std::abs(hours - 20.0) < 2.0);  // 2000 arrivals at 100/h
    int kinds[4] = {0, 0, 0, 0};
    for (const auto& j : a.jobs) {
      kinds[int(j.job.perTask.kind)]++;
      QVERIFY(j.runtime >= 60);
      QVERIFY(*j.job.estimatedRuntime >= j.runtime);
    }
    QVERIFY(kinds[int(GpuRequest::Kind::Whole)] > 500);
    QVERIFY(kinds[int(GpuRequest::Kind::Mig)] > 200);
    QVERIFY(kinds[int(GpuRequest::Kind::Fraction)] > 200);
    const Trace b = *synthesize(*demoCluster(), sc);
    QCOMPARE(b.jobs[1234].job.submitTime, a.jobs[1234].job.submitTime);
    QCOMPARE(b.jobs[1234].runtime, a.jobs[1234].runtime);
  }

  void eventsFileErrorsNameTheLine() {
    auto ok = loadSimEvents(
        "- {at: 2h, node_failure: {node: h1, repair: 30m}}\n"
        "- {at: 1h, gpu_fault: {gpu: h1/0, xid: 48}}\n"
        "- {at: 3h, command: {hold: 4}, actor: bob}\n",
        "ev.yaml");
    QVERIFY2(ok.ok(), ok.ok() ? "" : ok.error().str().c_str());
    QCOMPARE(ok->size(), size_t{3});
    QCOMPARE(ok->front().at, Seconds{3600});  // sorted by time
    auto bad =
        loadSimEvents("- {at: 1h, node_failure: {node: h1}}\n- {at: 2h, reboot: h1}\n", "ev.yaml");
    QVERIFY(!bad.ok());
    QCOMPARE(bad.error().where.line, 2);
    auto engine = engineForTrace(cluster(), traceOf({}), {});
    Simulator sim(std::move(*engine), traceOf({}), fastConfig(),
                  {at(5, simev::NodeFailure{"nowhere", 10})});
    const Status s = sim.run();
    QVERIFY(!s.ok());
    QVERIFY(s.error().message.find("nowhere") != std::string::npos);
  }

  // A job the engine refuses (here: a duplicate id) is logged and counted; the run goes on.
  void refusedTraceJobsDoNotStopTheRun() {
    auto sim =
        simulate(traceOf({wholeJob(1, 0, 1, 100), wholeJob(1, 5, 1, 100), wholeJob(2, 5, 1, 50)}));
    const SimSummary s = sim.summary();
    QCOMPARE(s.refused, size_t{1});
    QCOMPARE(s.completed, size_t{2});
    QVERIFY(sim.log().front().what.find("job 1 refused at submit") != std::string::npos);
  }

  // Replayed on a state that already has job 1, the trace's job 1 becomes job 2.
  void traceIdsMoveAboveTheStartingState() {
    Trace first = traceOf({wholeJob(1, 0, 1, 1000)});
    auto engine = engineForTrace(cluster(), first, {});
    QVERIFY(engine->submit(first.jobs[0].job).ok());
    engine->runCycle();
    Simulator sim(std::move(*engine), traceOf({wholeJob(1, 10, 1, 100)}), fastConfig());
    QVERIFY(sim.run().ok());
    QCOMPARE(sim.engine().job(2)->state, JobState::Completed);
    QCOMPARE(sim.engine().job(2)->startTime, Seconds{10});
    QCOMPARE(sim.engine().job(1)->state, JobState::Completed);  // its estimate: 1000 s
    QCOMPARE(sim.engine().job(1)->endTime, Seconds{1000});
  }

  void pacedClockAdvancesAtItsSpeed() {
    PacedClock c(60);
    c.start(1000, 5.0);
    QCOMPARE(c.simTimeAt(6.0), Seconds{1060});
    c.setSpeed(10, 6.0);
    QCOMPARE(c.simTimeAt(8.0), Seconds{1080});
    auto engine = engineForTrace(cluster(), traceOf({wholeJob(1, 0, 1, 100)}), {});
    Simulator sim(std::move(*engine), traceOf({wholeJob(1, 0, 1, 100)}), fastConfig());
    auto more = sim.runUntil(50);
    QVERIFY(more.ok() && *more);
    QCOMPARE(sim.now(), Seconds{50});
    QCOMPARE(sim.engine().job(1)->state, JobState::Running);
    QVERIFY(sim.runUntil(1000).ok());
    QCOMPARE(sim.engine().job(1)->state, JobState::Completed);
  }
};

QTEST_APPLESS_MAIN(TstSimulator)
#include "tst_simulator.moc"
