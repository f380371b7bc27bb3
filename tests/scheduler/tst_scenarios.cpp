// Declarative scheduler scenarios (tests/scenarios/*.yaml, docs/scenario-format.md): every file
// runs as one data row and fails with the report's text. Also: exported engine state replays to
// the same decisions, malformed scenario files fail with file:line and field, and random small
// clusters, jobs, commands and completions never break the engine's invariants.
#include <QtTest>

#include <random>
#include <set>

#include "scheduler/command_yaml.h"
#include "scheduler/scenario.h"

using namespace tessera;

namespace {

std::set<std::string> gpuNames(const Engine& e, const JobRecord& r) {
  std::set<std::string> out;
  if (!r.placement) return out;
  const Cluster& c = e.cluster();
  for (const auto& t : r.placement->tasks)
    for (GpuId g : t.gpus) out.insert(c.node(t.node).name + "/" + std::to_string(c.gpu(g).index));
  return out;
}

// A mid-run engine: two teams, gangs, MIG and fractional jobs, a preemption, completions.
const char* kReplayScenario = R"(
name: replay-source
description: a small mixed cluster driven for a while; exported and replayed by the test
cluster:
  version: 1
  name: replay
  node_templates:
    dgx: {gpu_model: H100-SXM5-80GB, gpus: 8, cpus: 64, memory_gib: 512}
    pcie: {gpu_model: L40S, gpus: 4, cpus: 32, memory_gib: 256}
    mig: {gpu_model: A100-SXM4-80GB, gpus: 2}
  fabric:
    spines: [spine]
    leafs: [{name: leaf-a, spine: spine}, {name: leaf-b, spine: spine}]
  nodes:
    - {name: a1, template: dgx, leaf: leaf-a}
    - {name: a2, template: dgx, leaf: leaf-a}
    - {name: b1, template: pcie, leaf: leaf-b}
    - {name: m1, template: mig, leaf: leaf-b}
  overrides:
    - nodes: b1
      gpus: {"2-3": {timeslice: 4}}
    - nodes: m1
      gpus: {"0-1": {mig: "3g.40gb@0,1g.10gb@4"}}
workload:
  version: 1
  teams:
    - {name: research}
    - {name: prod}
  jobs:
    - {id: 1, team: research, priority: experiment, tasks: 2, gpus: 4, runtime: 4h, checkpoint_interval: 30m}
    - {id: 2, team: prod, priority: production-training, gpus: 8, runtime: 2h}
    - {id: 3, team: research, priority: spot, gpus: 2, runtime: 1h}
    - {id: 4, team: prod, priority: serving, mig: 3g.40gb, runtime: 10h}
    - {id: 5, team: research, priority: experiment, fraction: {milli: 500, vram_mib: 10000}, runtime: 3h}
    - {id: 6, team: prod, priority: production-training, tasks: 2, gpus: 8, submit: 30m, runtime: 5h}
    - {id: 7, team: research, priority: spot, gpus: 1, runtime: 20m, submit: 40m}
    - {id: 8, team: research, priority: experiment, mig: 1g.10gb, runtime: 8h}
    - {id: 9, team: prod, priority: serving, gpus: 2, model: [L40S], runtime: 30m}
    - {id: 10, team: research, priority: experiment, gpus: 8, runtime: 1h, submit: 50m}
steps:
  - {cycle: 1}
  - {at: 30m, cycle: 1}
  - {at: 45m, complete: [9], cycle: 1}
  - {at: 1h, cycle: 1}
)";

Scenario mustLoad(const std::string& text, const std::string& name) {
  auto s = loadScenario(text, name);
  if (!s) qFatal("%s", s.error().str().c_str());
  return std::move(*s);
}

// Loads `text` and returns the error text ("" when it loaded).
std::string loadError(const std::string& text) {
  auto s = loadScenario(text, "bad.yaml");
  return s ? std::string() : s.error().str();
}

const char* kGood = R"(name: ok
description: minimal
cluster:
  version: 1
  name: c
  node_templates:
    t: {gpu_model: L40S, gpus: 2}
  fabric:
    leafs: [{name: leaf}]
  nodes:
    - {name: n1, template: t, leaf: leaf}
workload:
  version: 1
  teams: [{name: t1}]
  jobs:
    - {id: 1, team: t1, priority: experiment, gpus: 1}
steps:
)";

// ---------------------------------------------------------------- random property test

struct Rng {
  std::mt19937_64 gen;
  explicit Rng(uint64_t seed) : gen(seed) {}
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(gen); }
  bool chance(double p) { return std::bernoulli_distribution(p)(gen); }
};

std::string randomScenario(Rng& r) {
  std::string y = "name: random\ndescription: random\ncluster:\n  version: 1\n  name: r\n";
  y += "  node_templates:\n";
  y += "    dgx: {gpu_model: H100-SXM5-80GB, gpus: 8, cpus: 64, memory_gib: 512}\n";
  y += "    pcie: {gpu_model: L40S, gpus: 4, cpus: 32, memory_gib: 128}\n";
  y += "    mig: {gpu_model: A100-SXM4-80GB, gpus: 2, cpus: 32, memory_gib: 256}\n";
  y += "  fabric:\n    spines: [s]\n    leafs: [{name: l1, spine: s}, {name: l2, spine: s}]\n";
  y += "  nodes:\n";
  const int dgx = r.uniform(1, 3), pcie = r.uniform(1, 2);
  for (int i = 1; i <= dgx; ++i)
    y += "    - {name: d" + std::to_string(i) + ", template: dgx, leaf: l" +
         std::to_string(1 + i % 2) + "}\n";
  for (int i = 1; i <= pcie; ++i)
    y += "    - {name: p" + std::to_string(i) + ", template: pcie, leaf: l2}\n";
  y += "    - {name: m1, template: mig, leaf: l2}\n";
  y += "  overrides:\n    - nodes: m1\n      gpus: {\"0-1\": {mig: \"3g.40gb@4\"}}\n";
  y += "    - nodes: p1\n      gpus: {\"3\": {timeslice: 4}}\n";
  y += "workload:\n  version: 1\n  teams:\n    - {name: dept}\n";
  y += "    - {name: a, parent: dept, quotas: {H100-SXM5-80GB: {guaranteed: " +
       std::to_string(r.uniform(0, 8)) + ", borrow: " + std::to_string(r.uniform(0, 8)) + "}}}\n";
  y += "    - {name: b, parent: dept, quotas: {H100-SXM5-80GB: {guaranteed: " +
       std::to_string(r.uniform(0, 8)) + ", borrow: " + std::to_string(r.uniform(0, 16)) + "}}}\n";
  y += "    - {name: c}\n";
  y += "  jobs:\n";
  const char* classes[] = {"serving", "production-training", "experiment", "spot"};
  const char* teams[] = {"a", "b", "c"};
  const int jobs = r.uniform(4, 14);
  for (int id = 1; id <= jobs; ++id) {
    y += "    - {id: " + std::to_string(id) + ", team: " + teams[r.uniform(0, 2)] +
         ", priority: " + classes[r.uniform(0, 3)];
    const int kind = r.uniform(0, 9);
    if (kind < 6) {
      y += ", tasks: " + std::to_string(r.uniform(1, 3)) +
           ", gpus: " + std::to_string(r.uniform(1, 8));
      if (r.chance(0.3))
        y +=
            ", topology: {level: node, required: " + std::string(r.chance(0.5) ? "true" : "false") +
            "}";
      if (r.chance(0.3)) y += ", cpus: " + std::to_string(r.uniform(1, 40));
    } else if (kind < 8) {
      const char* profiles[] = {"1g.10gb", "2g.20gb", "3g.40gb"};
      y += std::string(", mig: ") + profiles[r.uniform(0, 2)];
    } else {
      y += ", fraction: {milli: " + std::to_string(r.uniform(1, 10) * 100) +
           ", vram_mib: " + std::to_string(r.uniform(0, 20) * 1000) + "}";
    }
    if (r.chance(0.8)) y += ", runtime: " + std::to_string(r.uniform(1, 20) * 10) + "m";
    if (r.chance(0.4)) y += ", checkpoint_interval: " + std::to_string(r.uniform(1, 6) * 10) + "m";
    if (r.chance(0.3)) y += ", submit: " + std::to_string(r.uniform(0, 12) * 10) + "m";
    y += "}\n";
  }
  if (r.chance(0.5)) y += "policy: {version: 1, backfill: {plugin: none}}\n";
  y += "steps: []\n";
  return y;
}

std::optional<Command> randomCommand(Rng& r, const Engine& e, JobId& nextId) {
  const auto jobs = e.jobs();
  const JobId some =
      jobs.empty()
          ? 1
          : jobs[static_cast<size_t>(r.uniform(0, static_cast<int>(jobs.size()) - 1))]->job.id;
  const auto& nodes = e.cluster().nodes();
  const std::string node =
      nodes[static_cast<size_t>(r.uniform(0, static_cast<int>(nodes.size()) - 1))].name;
  switch (r.uniform(0, 12)) {
    case 0:
      return Command{cmd::Hold{some}};
    case 1:
      return Command{cmd::Release{some}};
    case 2:
      return Command{cmd::Cancel{some}};
    case 3:
      return Command{cmd::Preempt{some}};
    case 4:
      return Command{cmd::Drain{node, literal("random")}};
    case 5:
      return Command{cmd::Undrain{node}};
    case 6:
      return Command{
          cmd::Move{some, r.chance(0.5) ? cmd::Move::To::Top : cmd::Move::To::Bottom, kNoJob}};
    case 7:
      return Command{cmd::SetPriority{some, r.chance(0.5) ? "serving" : "spot"}};
    case 8: {
      Quota q;
      q.guaranteed = r.uniform(0, 8);
      q.borrowLimit = r.uniform(0, 8);
      return Command{cmd::SetQuota{r.chance(0.5) ? "a" : "b", "H100-SXM5-80GB", q}};
    }
    case 9: {
      cmd::CreateReservation c;
      c.id = "r" + std::to_string(r.uniform(0, 3));
      c.nodes = {node};
      c.from = e.now() + r.uniform(0, 6) * 600;
      c.until = c.from + r.uniform(1, 6) * 600;
      if (r.chance(0.5)) c.team = "a";
      return Command{c};
    }
    case 10:
      return Command{cmd::DeleteReservation{"r" + std::to_string(r.uniform(0, 3))}};
    case 11: {
      cmd::Submit s;
      s.job.id = nextId++;
      s.job.team = "c";
      s.job.priorityClass = "experiment";
      s.job.tasks = r.uniform(1, 2);
      s.job.perTask.kind = GpuRequest::Kind::Whole;
      s.job.perTask.gpus = r.uniform(1, 4);
      s.job.submitTime = e.now();
      s.job.estimatedRuntime = r.uniform(1, 6) * 600;
      return Command{s};
    }
    default: {
      cmd::Repartition rp;
      rp.gpu = "m1/" + std::to_string(r.uniform(0, 1));
      const char* layouts[] = {"3g.40gb@4", "3g.40gb@0,3g.40gb@4", "1g.10gb@0,2g.20gb@2,3g.40gb@4",
                               "7g.80gb@0"};
      rp.layout = layouts[r.uniform(0, 3)];
      rp.force = r.chance(0.3);
      return Command{rp};
    }
  }
}

}  // namespace

class TstScenarios : public QObject {
  Q_OBJECT

 private slots:
  void scenarioFiles_data() {
    QTest::addColumn<QString>("path");
    const QDir dir(TESSERA_SCENARIO_DIR);
    const auto files = dir.entryList({"*.yaml"}, QDir::Files, QDir::Name);
    QVERIFY2(files.size() >= 40, "expected at least 40 scenario files");
    for (const auto& f : files) QTest::newRow(qPrintable(f)) << dir.filePath(f);
  }

  void scenarioFiles() {
    QFETCH(QString, path);
    auto s = loadScenarioFile(path.toStdString());
    QVERIFY2(s, s ? "" : s.error().str().c_str());
    QVERIFY2(!s->description.empty(), "a scenario says what it proves");
    auto report = runScenario(*s);
    QVERIFY2(report, report ? "" : report.error().str().c_str());
    const std::string text = report->text(path.toStdString());
    QVERIFY2(report->ok(), text.c_str());
    QVERIFY2(report->checks > 0, "a scenario checks something");
  }

  // The exported input of a mid-run engine, loaded again, decides the next cycle exactly as
  // the engine itself (a fork of it) does.
  void exportReplaysTheNextCycle() {
    const Scenario source = mustLoad(kReplayScenario, "replay-source.yaml");
    Engine original = *buildEngine(source);
    auto ran = runScenario(source, &original);
    QVERIFY2(ran && ran->ok(),
             ran ? ran->text("replay-source").c_str() : ran.error().str().c_str());
    QVERIFY(!original.running().empty());
    QVERIFY(!original.queue().empty());
    // An operator's drain travels with its reason.
    const Node& drained = original.cluster().nodes().back();
    QVERIFY(
        execute(original, Command{cmd::Drain{drained.name, literal("psu swap")}}, "alice", false));

    const std::string exported = exportScenario(original, "replay");
    auto loaded = loadScenario(exported, "exported.yaml");
    QVERIFY2(loaded, loaded ? "" : (loaded.error().str() + "\n" + exported).c_str());
    Engine replayed = *buildEngine(source);
    auto replay = runScenario(*loaded, &replayed);
    QVERIFY2(replay, replay ? "" : (replay.error().str() + "\n" + exported).c_str());
    QVERIFY2(replay->ok(), replay->text("exported.yaml").c_str());
    QCOMPARE(replayed.state().nodeState(drained.id), NodeState::Draining);
    QCOMPARE(replayed.nodeReason(drained.id).english(), std::string("psu swap"));

    Engine fork = original;  // the engine is a value: this forks it
    QVERIFY(fork.advanceTo(original.now()));
    fork.runCycle();
    QCOMPARE(replayed.now(), fork.now());
    int compared = 0;
    for (const JobRecord* r : original.jobs()) {
      if (!r->active()) continue;
      const JobRecord* a = fork.job(r->job.id);
      const JobRecord* b = replayed.job(r->job.id);
      QVERIFY2(b, qPrintable(QString("job %1 missing after replay").arg(r->job.id)));
      QVERIFY2(a->state == b->state, qPrintable(QString("job %1: %2 vs replayed %3")
                                                    .arg(r->job.id)
                                                    .arg(jobStateName(a->state))
                                                    .arg(jobStateName(b->state))));
      QVERIFY2(gpuNames(fork, *a) == gpuNames(replayed, *b),
               qPrintable(QString("job %1 placed differently after replay").arg(r->job.id)));
      ++compared;
    }
    QVERIFY(compared >= 4);
  }

  // Queue moves, pins and fair-share history travel with the export: the replay orders the queue
  // and keeps the pins exactly as the live engine, and the teams' usage is the same.
  void exportCarriesQueueMovesPinsAndFairShare() {
    const std::string text = R"(name: carry
description: x
cluster:
  version: 1
  name: one
  node_templates:
    dgx: {gpu_model: H100-SXM5-80GB, gpus: 8}
  fabric:
    leafs: [{name: l1}]
  nodes:
    - {name: n1, template: dgx, leaf: l1}
    - {name: n2, template: dgx, leaf: l1}
workload:
  version: 1
  teams: [{name: a}, {name: b}]
  jobs:
    - {id: 1, team: a, priority: experiment, gpus: 8, runtime: 10h}
    - {id: 2, team: a, priority: experiment, gpus: 8, runtime: 10h}
    - {id: 3, team: a, priority: experiment, gpus: 4, submit: 1h}
    - {id: 4, team: b, priority: experiment, gpus: 4, submit: 1h}
    - {id: 5, team: b, priority: experiment, gpus: 4, submit: 1h}
steps:
  - cycle: 1
  - at: 2h
    command: {move: {job: 5, to: top}}
  - command: {pin: {job: 4, nodes: [n2]}}
  - cycle: 1
)";
    const Scenario source = mustLoad(text, "carry.yaml");
    Engine original = *buildEngine(source);
    auto ran = runScenario(source, &original);
    QVERIFY2(ran && ran->ok(), ran ? ran->text("carry").c_str() : ran.error().str().c_str());
    // Team a used 16 GPUs for 2 h: its usage is positive, b's is 0, so b's jobs go first, and
    // the operator moved job 5 ahead of job 4.
    QVERIFY(original.fairShare().usage(0) > 0);
    const auto order = [](const Engine& e) {
      std::vector<JobId> ids;
      for (const JobRecord* r : e.queue()) ids.push_back(r->job.id);
      return ids;
    };
    QCOMPARE(order(original), (std::vector<JobId>{5, 4, 3}));
    const std::string exported = exportScenario(original, "carried");
    auto loaded = loadScenario(exported, "exported.yaml");
    QVERIFY2(loaded, loaded ? "" : (loaded.error().str() + "\n" + exported).c_str());
    auto replayed = buildEngine(*loaded);
    QVERIFY2(replayed, replayed ? "" : (replayed.error().str() + "\n" + exported).c_str());
    QCOMPARE(replayed->now(), original.now());
    QCOMPARE(order(*replayed), order(original));
    QCOMPARE(replayed->job(4)->pinned, original.job(4)->pinned);
    QCOMPARE(replayed->job(4)->pinned.size(), size_t{8});
    for (int t = 0; t < 2; ++t)
      QVERIFY(std::abs(replayed->fairShare().usage(t) - original.fairShare().usage(t)) < 1e-6);
  }

  void commandsRoundTrip() {
    const std::vector<std::string> texts = {
        "{hold: 12}",
        "{cancel: 3}",
        "{release: 4}",
        "{preempt: 9}",
        "{undrain: n1}",
        "{delete_reservation: mw1}",
        "{set_priority: {job: 3, class: serving}}",
        "{move: {job: 3, to: before, before: 5}}",
        "{move: {job: 3, to: bottom}}",
        "{pin: {job: 3, gpus: [n1/0], nodes: [n2]}}",
        "{repartition: {gpu: a100-1/0, layout: \"3g.40gb,4x1g.10gb\", force: true}}",
        "{drain: {node: n1, reason: psu}}",
        "{set_quota: {team: t, key: H100, guaranteed: 8, borrow: 4, lend: 2}}",
        "{create_reservation: {id: mw1, nodes: [n1], from: 1h, until: 3h, team: t}}",
        "{submit: {id: 7, team: t, priority: serving, tasks: 2, gpus: 4, runtime: 1h30m, "
        "topology: {level: leaf, required: true}}}",
    };
    for (const auto& text : texts) {
      const std::string file = "cmd.yaml";
      auto node = parseYaml(text, file);
      QVERIFY2(node, text.c_str());
      auto c = commandFromYaml(YamlField(*node, "command", &file));
      QVERIFY2(c, c ? text.c_str() : c.error().str().c_str());
      const std::string written = commandToYaml(*c);
      auto node2 = parseYaml(written, file);
      QVERIFY2(node2, written.c_str());
      auto c2 = commandFromYaml(YamlField(*node2, "command", &file));
      QVERIFY2(c2, c2 ? written.c_str() : c2.error().str().c_str());
      QCOMPARE(QString::fromStdString(commandToYaml(*c2)), QString::fromStdString(written));
      QCOMPARE(QString::fromStdString(describe(*c2)), QString::fromStdString(describe(*c)));
    }
    // The quota key resolves aliases like the workload reader does.
    const std::string file = "cmd.yaml";
    auto node = parseYaml("{set_quota: {team: t, key: H100, guaranteed: 1}}", file);
    auto c = commandFromYaml(YamlField(*node, "command", &file));
    QVERIFY(c);
    QCOMPARE(QString::fromStdString(std::get<cmd::SetQuota>(*c).key), QString("H100-SXM5-80GB"));
  }

  void malformedScenariosNameFileLineAndField() {
    QVERIFY2(loadError(kGood + std::string("  - {cycle: 1}\n")).empty(),
             loadError(kGood + std::string("  - {cycle: 1}\n")).c_str());
    struct Case {
      std::string steps;
      std::string where;  // file:line:column prefix (line of the offending node)
      std::string text;   // part of the message, with the field path
    };
    const std::vector<Case> cases = {
        // unknown key in a step
        {"  - {cycle: 1, cylce: 2}\n", "bad.yaml:18:", "steps[0].cylce: unknown field 'cylce'"},
        // unknown job id in an expectation
        {"  - cycle: 1\n    expect:\n      jobs:\n        42: {state: running}\n",
         "bad.yaml:21:", "unknown job id 42"},
        // unknown key inside a job expectation
        {"  - cycle: 1\n    expect:\n      jobs:\n        1: {stat: running}\n",
         "bad.yaml:21:", "steps[0].expect.jobs.1.stat: unknown field 'stat'"},
        // bad duration
        {"  - {at: 10x}\n", "bad.yaml:18:", "steps[0].at: bad duration '10x'"},
        // bad command
        {"  - command: {frobnicate: 1}\n", "bad.yaml:18:", "unknown command 'frobnicate'"},
        {"  - command: {move: {job: 1, to: sideways}}\n",
         "bad.yaml:18:", "steps[0].command.move.to: to must be top, bottom or before"},
        // a submitted job with an unknown team: the submit's own field path
        {"  - command: {submit: {id: 2, team: nobody, priority: spot, gpus: 1}}\n",
         "bad.yaml:18:", "steps[0].command.submit.team: unknown team 'nobody'"},
        // unknown event kind
        {"  - expect: {events: [{kind: exploded}]}\n",
         "bad.yaml:18:", "steps[0].expect.events[0].kind: unknown event kind"},
        // unknown job state
        {"  - expect: {jobs: {1: {state: sleeping}}}\n",
         "bad.yaml:18:", "steps[0].expect.jobs.1.state: unknown job state 'sleeping'"},
    };
    for (const auto& c : cases) {
      const std::string err = loadError(kGood + c.steps);
      QVERIFY2(err.rfind(c.where, 0) == 0, (err + "  (expected " + c.where + ")").c_str());
      QVERIFY2(err.find(c.text) != std::string::npos,
               (err + "  (expected " + c.text + ")").c_str());
    }
    // Unknown top-level key and unknown key in the cluster spec inside the scenario.
    std::string err = loadError("name: x\ndescription: y\nstpes: []\ncluster: demo\n");
    QVERIFY2(
        err.rfind("bad.yaml:3:", 0) == 0 && err.find("unknown field 'stpes'") != std::string::npos,
        err.c_str());
    std::string spec = kGood;
    spec.replace(spec.find("gpus: 2}"), 8, "gpus: 2, gpu_modle: x}");
    err = loadError(spec);
    QVERIFY2(err.rfind("bad.yaml:7:", 0) == 0 &&
                 err.find("cluster.node_templates.t") != std::string::npos,
             err.c_str());
    // A state naming a GPU that does not exist.
    spec = kGood;
    spec.replace(spec.find("steps:"), 6,
                 "state:\n  running:\n    - {job: 1, tasks: [{node: n1, gpus: [5]}]}\nsteps:");
    err = loadError(spec);
    QVERIFY2(err.rfind("bad.yaml:19:", 0) == 0 &&
                 err.find("state.running[0].tasks[0].gpus") != std::string::npos,
             err.c_str());
  }

  // A failed expectation is reported with the scenario file's line and what differed.
  void failedExpectationsAreReportedWithTheirLine() {
    const std::string text =
        kGood +
        std::string("  - cycle: 1\n    expect:\n      jobs:\n        1: {state: pending}\n");
    const Scenario s = mustLoad(text, "report.yaml");
    auto report = runScenario(s);
    QVERIFY(report);
    QVERIFY(!report->ok());
    const std::string out = report->text("report.yaml");
    QVERIFY2(out.find("report.yaml:21: expect.jobs.1.state: job 1 is running, expected pending") !=
                 std::string::npos,
             out.c_str());
  }

  // Random small clusters, jobs, operator commands, completions and clock moves: the engine's
  // invariants hold after every step.
  void randomOperationsKeepInvariants() {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      Rng r(seed);
      const std::string text = randomScenario(r);
      auto s = loadScenario(text, "random-" + std::to_string(seed) + ".yaml");
      QVERIFY2(s, s ? "" : (s.error().str() + "\n" + text).c_str());
      // The random jobs arrive by submit: one that can never run on the random cluster is
      // refused there (and must leave nothing behind), the rest waits for its submit time.
      std::vector<Job> arrivals = std::move(s->workload.jobs);
      s->workload.jobs.clear();
      auto built = buildEngine(*s);
      QVERIFY2(built, built ? "" : built.error().str().c_str());
      Engine e = std::move(*built);
      for (Job& j : arrivals) {
        const JobId id = j.id;
        if (!e.submit(std::move(j))) QCOMPARE(e.job(id), nullptr);
      }
      QCOMPARE(e.invariantViolations(), std::vector<std::string>{});
      JobId nextId = 1000;
      for (int step = 0; step < 60; ++step) {
        std::string what;
        switch (r.uniform(0, 5)) {
          case 0:
            QVERIFY(e.advanceTo(e.now() + r.uniform(1, 12) * 300));
            what = "advance";
            break;
          case 1: {
            const auto running = e.running();
            if (!running.empty()) {
              const JobId id =
                  running[static_cast<size_t>(r.uniform(0, static_cast<int>(running.size()) - 1))]
                      ->job.id;
              if (r.chance(0.8))
                QVERIFY(e.complete(id));
              else
                QVERIFY(e.checkpoint(id));
            }
            what = "complete";
            break;
          }
          case 2:
          case 3: {
            auto c = randomCommand(r, e, nextId);
            what = commandToYaml(*c);
            const Engine before = e;
            const bool dry = r.chance(0.3);
            auto res = execute(e, *c, "prop", dry);
            if (dry) {
              // A dry run changes nothing the scheduler decides on.
              QCOMPARE(e.jobs().size(), before.jobs().size());
              QVERIFY(e.state().counters() == before.state().counters());
            }
            (void)res;
            break;
          }
          default:
            e.runCycle();
            what = "cycle";
            break;
        }
        const auto v = e.invariantViolations();
        if (!v.empty())
          QFAIL(qPrintable(QString("seed %1 step %2 (%3): %4")
                               .arg(seed)
                               .arg(step)
                               .arg(QString::fromStdString(what))
                               .arg(QString::fromStdString(v.front()))));
      }
    }
  }
};

QTEST_GUILESS_MAIN(TstScenarios)
#include "tst_scenarios.moc"
