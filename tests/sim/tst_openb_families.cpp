// The openb trace-family generators (sim/openb_families.h): the asked share comes out within
// sampling tolerance, every generated task is one of the default trace's (the paper's resampling),
// the rest of the trace is left as it was, and a seed gives the same list.
#include <QtTest>

#include <map>
#include <tuple>

#include "sim/openb_data.h"
#include "sim/openb_families.h"

using namespace tessera;

namespace {

const std::string kDir = TESSERA_OPENB_DIR;

const std::vector<OpenbPodRow>& defaultPods() {
  static const auto pods = [] {
    auto p = readOpenbPodRows(kDir + "/openb_pod_list_default.csv");
    if (!p) qFatal("%s", p.error().str().c_str());
    return *p;
  }();
  return pods;
}

const std::vector<OpenbNode>& nodes() {
  static const auto n = [] {
    auto p = readOpenbNodeList(kDir + "/openb_node_list_gpu_node.csv");
    if (!p) qFatal("%s", p.error().str().c_str());
    return *p;
  }();
  return n;
}

using Task = std::tuple<int64_t, int64_t, int, int>;  // cpu, memory, GPUs, milli
Task taskOf(const OpenbPodRow& r) {
  return {r.cpuMilli, r.memoryMiB, r.numGpu, r.gpuMilli};
}

std::map<Task, int> census(const std::vector<OpenbPodRow>& pods, bool gpuTasks) {
  std::map<Task, int> out;
  for (const auto& r : pods)
    if ((r.numGpu > 0 && r.gpuMilli > 0) == gpuTasks) ++out[taskOf(r)];
  return out;
}

std::vector<OpenbPodRow> generate(const char* family, uint64_t seed = 42) {
  const auto spec = parseOpenbFamily(family);
  if (!spec) qFatal("%s", spec.error().str().c_str());
  auto pods = generateOpenbFamily(defaultPods(), nodes(), *spec, seed);
  if (!pods) qFatal("%s", pods.error().str().c_str());
  return *pods;
}

}  // namespace

class TstOpenbFamilies : public QObject {
  Q_OBJECT

 private slots:
  void sharesAreWhatWasAsked_data() {
    QTest::addColumn<QString>("family");
    QTest::addColumn<int>("kind");
    QTest::addColumn<double>("share");
    QTest::addColumn<double>("tolerance");
    // Counts are exact by construction; demand shares vary with the tasks drawn.
    QTest::newRow("cpu-only 25 %") << "cpu-only:25%" << int(OpenbFamily::CpuOnly) << 0.25 << 0.001;
    QTest::newRow("cpu-only 5 %") << "cpu-only:0.05" << int(OpenbFamily::CpuOnly) << 0.05 << 0.001;
    QTest::newRow("gpushare 60 %") << "gpushare:60%" << int(OpenbFamily::GpuShare) << 0.6 << 0.02;
    QTest::newRow("gpushare 10 %") << "gpushare:10%" << int(OpenbFamily::GpuShare) << 0.1 << 0.02;
    QTest::newRow("multigpu 20 %") << "multigpu:20%" << int(OpenbFamily::MultiGpu) << 0.2 << 0.03;
    QTest::newRow("multigpu 50 %") << "multigpu:50%" << int(OpenbFamily::MultiGpu) << 0.5 << 0.03;
    QTest::newRow("gpuspec 5 %") << "gpuspec:5%" << int(OpenbFamily::GpuSpec) << 0.05 << 0.001;
    QTest::newRow("gpuspec 33 %") << "gpuspec:33%" << int(OpenbFamily::GpuSpec) << 0.33 << 0.001;
  }
  void sharesAreWhatWasAsked() {
    QFETCH(QString, family);
    QFETCH(int, kind);
    QFETCH(double, share);
    QFETCH(double, tolerance);
    const auto before = openbFamilyShare(defaultPods(), OpenbFamily(kind));
    QVERIFY2(std::abs(before - share) > 0.02, "the default trace already has this share");
    for (uint64_t seed : {1u, 2u, 3u}) {
      const double got = openbFamilyShare(generate(qPrintable(family), seed), OpenbFamily(kind));
      QVERIFY2(std::abs(got - share) <= tolerance,
               qPrintable(QString("%1 seed %2: %3").arg(family).arg(seed).arg(got)));
    }
  }

  // Every generated task is a default task (resampling, not invention), and what the family does
  // not vary stays: the cpu-only family keeps the GPU tasks exactly, the demand families the
  // CPU-only tasks and the GPU task count, gpuspec every task (adding a spec only).
  void tasksAreResampledFromTheDefaultTrace() {
    const auto gpu = census(defaultPods(), true), cpu = census(defaultPods(), false);
    auto fromDefault = [&](const std::vector<OpenbPodRow>& pods) {
      for (const auto& r : pods)
        if (!gpu.count(taskOf(r)) && !cpu.count(taskOf(r))) return false;
      return true;
    };
    const auto cpuFamily = generate("cpu-only:30%");
    QVERIFY(fromDefault(cpuFamily));
    QCOMPARE(census(cpuFamily, true), gpu);
    const auto multi = generate("multigpu:40%");
    QVERIFY(fromDefault(multi));
    QCOMPARE(census(multi, false), cpu);
    size_t gpuTasks = 0;
    for (const auto& [task, n] : gpu) gpuTasks += size_t(n);
    size_t multiGpuTasks = 0;
    for (const auto& [task, n] : census(multi, true)) multiGpuTasks += size_t(n);
    QCOMPARE(multiGpuTasks, gpuTasks);
    const auto spec = generate("gpuspec:20%");
    QCOMPARE(spec.size(), defaultPods().size());
    for (size_t i = 0; i < spec.size(); ++i) {
      QCOMPARE(taskOf(spec[i]), taskOf(defaultPods()[i]));
      if (spec[i].spec.empty()) continue;
      bool holds = false;  // a node of a listed model has the GPUs
      for (const auto& n : nodes())
        for (const auto& m : spec[i].spec)
          holds = holds || (n.model == m && n.gpus >= spec[i].numGpu);
      QVERIFY2(holds, spec[i].name.c_str());
    }
  }

  void sameSeedSameTrace() {
    const auto a = generate("gpushare:70%", 9), b = generate("gpushare:70%", 9);
    const auto c = generate("gpushare:70%", 10);
    auto same = [](const std::vector<OpenbPodRow>& x, const std::vector<OpenbPodRow>& y) {
      if (x.size() != y.size()) return false;
      for (size_t i = 0; i < x.size(); ++i)
        if (taskOf(x[i]) != taskOf(y[i]) || x[i].name != y[i].name) return false;
      return true;
    };
    QVERIFY(same(a, b));
    QVERIFY(!same(a, c));
  }

  void badFamiliesAreRefused() {
    QVERIFY(!parseOpenbFamily("bigpods:0.5"));
    QVERIFY(!parseOpenbFamily("multigpu"));
    QVERIFY(!parseOpenbFamily("multigpu:lots"));
    QVERIFY(!parseOpenbFamily("multigpu:150%"));
    QCOMPARE(QString::fromStdString(parseOpenbFamily("bigpods:0.5").error().message),
             QString("unknown trace family 'bigpods' (known: cpu-only, gpushare, multigpu, "
                     "gpuspec; as FAMILY:SHARE)"));
    QCOMPARE(QString::fromStdString(openbFamilyName(*parseOpenbFamily("multigpu:50%"))),
             QString("multigpu50"));
  }
};

QTEST_GUILESS_MAIN(TstOpenbFamilies)
#include "tst_openb_families.moc"
