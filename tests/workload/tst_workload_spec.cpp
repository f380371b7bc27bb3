// Workload files: jobs, priority classes, teams and quotas (scheduler engine groundwork).
#include <QtTest>

#include "workload/workload_spec.h"

using namespace tessera;

namespace {

const char* kGood = R"(version: 1
teams:
  - {name: research, weight: 2}
  - name: vision
    parent: research
    quotas:
      H100: {guaranteed: 16, borrow: 8, lend: 4}
      "pool:inference": {guaranteed: 2}
      "*": {guaranteed: 20}
  - {name: ops}
jobs:
  - id: 1
    name: llm-pretrain
    team: vision
    priority: production-training
    class: training
    tasks: 4
    gpus: 8
    cpus: 32
    memory_gib: 256
    model: [H100-SXM5-80GB, H200]
    topology: {level: nvlink-domain, required: true}
    submit: 0
    runtime: 2h30m
    checkpoint_interval: 10m
    last_checkpoint: 90s
  - {id: 2, team: ops, priority: serving, class: inference, mig: 3g.40gb, pool: inference}
  - {id: 3, team: ops, priority: spot, class: interactive, fraction: {milli: 250, vram_mib: 8000}, hold: true}
  - {id: 4, team: research, priority: experiment, preemptible: false, min_gpu_memory_gib: 40, gpus: 1}
)";

QString errorOf(const std::string& yaml) {
  auto w = loadWorkload(yaml, "w.yaml");
  return w.ok() ? QString("<loaded>") : QString::fromStdString(w.error().str());
}

}  // namespace

class TstWorkloadSpec : public QObject {
  Q_OBJECT

 private slots:
  void durations() {
    QCOMPARE(parseDuration("90").value_or(-1), Seconds{90});
    QCOMPARE(parseDuration("90s").value_or(-1), Seconds{90});
    QCOMPARE(parseDuration("15m").value_or(-1), Seconds{900});
    QCOMPARE(parseDuration("1h30m").value_or(-1), Seconds{5400});
    QCOMPARE(parseDuration("1d").value_or(-1), Seconds{86400});
    for (const char* bad : {"", "h", "5x", "1h30", "-5", "1.5h", "m5"})
      QVERIFY2(!parseDuration(bad), bad);
    // Bounded at 100 years, so times computed from durations never overflow.
    QCOMPARE(parseDuration("36500d").value_or(-1), Seconds{36500} * 86400);
    for (const char* tooLong : {"36501d", "2147483647d", "3153600001", "36500d1s", "99999999999h"})
      QVERIFY2(!parseDuration(tooLong), tooLong);
  }

  void readsJobsTeamsAndClasses() {
    auto w = loadWorkload(kGood, "w.yaml");
    QVERIFY2(w.ok(), w.ok() ? "" : w.error().str().c_str());
    QCOMPARE(w->priorityClasses.size(), size_t{4});  // the defaults
    QVERIFY(w->priorityClass("serving")->value > w->priorityClass("production-training")->value);
    QVERIFY(w->priorityClass("experiment")->value > w->priorityClass("spot")->value);
    QCOMPARE(QString::fromStdString(w->team("vision")->parent), QString("research"));
    QCOMPARE(w->team("research")->weight, 2.0);
    // Quota keys are normalised to catalog ids.
    QCOMPARE(w->team("vision")->quotas.at("H100-SXM5-80GB").guaranteed, 16);
    QCOMPARE(w->team("vision")->quotas.at("H100-SXM5-80GB").lendLimit, 4);
    QCOMPARE(w->team("vision")->quotas.at("pool:inference").guaranteed, 2);
    const Job& llm = w->jobs[0];
    QCOMPARE(llm.tasks, 4);
    QCOMPARE(int(llm.perTask.kind), int(GpuRequest::Kind::Whole));
    QCOMPARE(llm.gpuDemand(), 32.0);
    QCOMPARE(llm.model.models, (std::vector<std::string>{"H100-SXM5-80GB", "H200-SXM-141GB"}));
    QCOMPARE(int(llm.topology.level), int(TopologyLevel::NvlinkDomain));
    QVERIFY(llm.topology.required);
    QCOMPARE(llm.estimatedRuntime.value_or(0), Seconds{9000});
    QCOMPARE(llm.checkpointInterval.value_or(0), Seconds{600});
    QCOMPARE(llm.memoryMiBPerTask, int64_t{256} * 1024);
    QVERIFY(!llm.preemptible);
    const Job& serving = w->jobs[1];
    QCOMPARE(QString::fromStdString(serving.perTask.migProfile), QString("3g.40gb"));
    QCOMPARE(QString::fromStdString(serving.name), QString("job-2"));
    const Job& notebook = w->jobs[2];
    QCOMPARE(notebook.perTask.milli, 250);
    QCOMPARE(notebook.gpuDemand(), 0.25);
    QVERIFY(notebook.preemptible);  // spot is preemptible by default
    QVERIFY(notebook.held);
    QVERIFY(!w->jobs[3].preemptible);  // explicit override of the class default
    QCOMPARE(w->jobs[3].model.minMemoryMiB, int64_t{40} * 1024);
  }

  void customPriorityClasses() {
    auto w = loadWorkload(R"(version: 1
priority_classes:
  - {name: urgent, value: 10}
  - {name: low, value: 1, preemptible: true}
teams: [{name: t}]
jobs:
  - {id: 1, team: t, priority: low, gpus: 1}
)",
                          "w.yaml");
    QVERIFY(w.ok());
    QCOMPARE(w->priorityClasses.size(), size_t{2});
    QVERIFY(w->jobs[0].preemptible);
    QVERIFY(!w->priorityClass("serving"));
  }

  void malformed_data() {
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<QString>("expected");
    const QString head = "version: 1\nteams: [{name: t}]\njobs:\n";
    QTest::newRow("empty") << ""
                           << "w.yaml: the file is empty";
    QTest::newRow("unknown team") << head + "  - {id: 1, team: x, priority: spot}\n"
                                  << "w.yaml:4:19: jobs[0].team: unknown team 'x'";
    QTest::newRow("unknown priority")
        << head + "  - {id: 1, team: t, priority: urgent}\n"
        << "w.yaml:4:32: jobs[0].priority: unknown priority class 'urgent'";
    QTest::newRow("two requests")
        << head + "  - {id: 1, team: t, priority: spot, gpus: 1, mig: 1g.10gb}\n"
        << "give at most one of gpus:, mig:, fraction:";
    QTest::newRow("unknown mig profile")
        << head + "  - {id: 1, team: t, priority: spot, mig: 5g.50gb}\n"
        << "no GPU model in the catalog has MIG profile '5g.50gb'";
    QTest::newRow("zero tasks") << head + "  - {id: 1, team: t, priority: spot, tasks: 0}\n"
                                << "jobs[0].tasks: must be at least 1";
    QTest::newRow("duplicate id")
        << head + "  - {id: 1, team: t, priority: spot}\n  - {id: 1, team: t, priority: spot}\n"
        << "w.yaml:5:10: jobs[1].id: duplicate job id 1";
    QTest::newRow("bad duration") << head +
                                         "  - {id: 1, team: t, priority: spot, runtime: 2 hours}\n"
                                  << "jobs[0].runtime: bad duration '2 hours'";
    QTest::newRow("bad topology")
        << head + "  - {id: 1, team: t, priority: spot, topology: {level: rack}}\n"
        << "level must be node, nvlink-domain, leaf, spine or any";
    QTest::newRow("unknown model")
        << head + "  - {id: 1, team: t, priority: spot, gpus: 1, model: [H900]}\n"
        << "unknown GPU model 'H900'";
    QTest::newRow("fraction too big")
        << head + "  - {id: 1, team: t, priority: spot, fraction: {milli: 1500}}\n"
        << "fraction.milli: must be at most 1000";
    QTest::newRow("unknown parent") << "version: 1\nteams:\n  - {name: a, parent: b}\n"
                                    << "w.yaml:3:23: teams[0].parent: unknown parent team 'b'";
    QTest::newRow("cycle")
        << "version: 1\nteams:\n  - {name: a, parent: b}\n  - {name: b, parent: a}\n"
        << "is its own ancestor";
    QTest::newRow("lend above guarantee")
        << "version: 1\nteams:\n  - {name: a, quotas: {H100: {guaranteed: 2, lend: 3}}}\n"
        << "cannot lend more than the guaranteed 2";
    QTest::newRow("bad quota key")
        << "version: 1\nteams:\n  - {name: a, quotas: {Z9: {guaranteed: 2}}}\n"
        << "quota key 'Z9' is neither a GPU model";
    QTest::newRow("typo") << head + "  - {id: 1, team: t, priority: spot, gpu: 1}\n"
                          << "unknown field 'gpu'";
  }
  void malformed() {
    QFETCH(QString, yaml);
    QFETCH(QString, expected);
    const QString got = errorOf(yaml.toStdString());
    QVERIFY2(got.contains(expected), qPrintable(got));
  }
};

QTEST_APPLESS_MAIN(TstWorkloadSpec)
#include "tst_workload_spec.moc"
