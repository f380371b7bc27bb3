// The openb placement-quality experiment (FGD paper): FGD's worked example and fragment cases,
// the baselines' score formulas on hand-computed nodes, the workload tuning, the metric on a tiny
// hand-computed run, determinism, the CSV readers' errors, and one short run on the real trace.
#include <QtTest>

#include <cmath>
#include <numeric>
#include <set>

#include "sim/openb_bound.h"
#include "sim/openb_experiment.h"
#include "sim/openb_policies.h"
#include "sim/openb_scores.h"

using namespace tessera;
using namespace tessera::openb;
using namespace tessera::frag;

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

NodeView node(int64_t cpuLeft, std::vector<int32_t> left, int model = 0) {
  NodeView n;
  n.cpuLeft = cpuLeft;
  n.memLeft = 1 << 20;
  n.gpus = static_cast<int>(left.size());
  n.model = model;
  for (size_t g = 0; g < left.size(); ++g) n.left[g] = left[g];
  return n;
}

PodDemand pod(int64_t cpu, int numGpu, int32_t milli, uint32_t models = kAnyModel) {
  PodDemand p;
  p.cpu = cpu;
  p.numGpu = numGpu;
  p.milli = milli;
  p.models = models;
  return p;
}

// One node, as the experiment holds it, for a policy's GPU choice.
ClusterState oneNode(const NodeView& n) {
  ClusterState c;
  c.nodes = {n};
  c.podCount = {0};
  c.tags = {GpuTags{}};
  return c;
}

OpenbPodRow podRow(std::string name, int64_t cpu, int num, int milli, std::string spec = {}) {
  OpenbPodRow p;
  p.name = std::move(name);
  p.cpuMilli = cpu;
  p.memoryMiB = 1024;
  p.numGpu = num;
  p.gpuMilli = milli;
  if (!spec.empty()) p.spec = {std::move(spec)};
  return p;
}

int64_t totalOf(const std::vector<OpenbPodRow>& pods, const std::vector<size_t>& order) {
  int64_t sum = 0;
  for (size_t i : order) sum += int64_t{pods[i].numGpu} * std::min(pods[i].gpuMilli, 1000);
  return sum;
}

std::string openbFile(const std::string& name) {
  return std::string(TESSERA_OPENB_DIR) + "/" + name;
}

}  // namespace

class TstOpenbExperiment : public QObject {
  Q_OBJECT

 private slots:
  // The paper's example (§4.3): 10 free cores, GPUs with 1000 and 300 milli free, a 200-milli
  // task. Under this three-class mix (whole GPU, half GPU, quarter GPU; equal shares) the free
  // GPU would lose its ability to host a whole-GPU task, so F rises by 266.7 there, while the
  // partly used GPU only strands its last 100 milli (F falls by 100): FGD picks GPU 1.
  void fgdWorkedExample() {
    const NodeView n = node(10000, {1000, 300});
    const std::vector<TypicalPod> mix = {
        {pod(4000, 1, 1000), 1.0 / 3}, {pod(2000, 1, 500), 1.0 / 3}, {pod(1000, 1, 250), 1.0 / 3}};
    const PodDemand task = pod(200, 1, 200);
    const double before = nodeFragmentation(n, mix);
    const double onFree = nodeFragmentation(withPod(n, task, 0), mix);
    const double onUsed = nodeFragmentation(withPod(n, task, 1), mix);
    QCOMPARE(before, 200.0);                        // (300 + 300 + 0) / 3
    QVERIFY(std::abs(onFree - 1400.0 / 3) < 1e-9);  // (1100 + 300 + 0) / 3
    QCOMPARE(onUsed, 100.0);                        // (100 + 100 + 100) / 3
    QCOMPARE(fgdScore(before, onFree), int64_t{43});
    QCOMPARE(fgdScore(before, onUsed), int64_t{52});

    auto fgd = makePolicy("fgd", {mix});
    Rng rng(1);
    const ClusterState c = oneNode(n);
    const std::vector<int> feasible{0};
    QCOMPARE(fgd->chooseNode(c, task, feasible, rng), 0);
    QCOMPARE(fgd->chooseSharedGpu(c, 0, task, rng), 1);
  }

  // The same node and task under a mix dominated by 300-milli tasks: now the partly used GPU is
  // the one worth keeping, and FGD takes the free one (best-fit would not).
  void fgdDependsOnTheMix() {
    const NodeView n = node(10000, {1000, 300});
    const std::vector<TypicalPod> mix = {{pod(4000, 1, 1000), 0.05}, {pod(1000, 1, 300), 0.95}};
    const PodDemand task = pod(200, 1, 200);
    const double before = nodeFragmentation(n, mix);
    QCOMPARE(fgdScore(before, nodeFragmentation(withPod(n, task, 0), mix)), int64_t{49});
    QCOMPARE(fgdScore(before, nodeFragmentation(withPod(n, task, 1), mix)), int64_t{47});
    auto fgd = makePolicy("fgd", {mix});
    Rng rng(1);
    const ClusterState c = oneNode(n);
    const std::vector<int> feasible{0};
    QCOMPARE(fgd->chooseNode(c, task, feasible, rng), 0);
    QCOMPARE(fgd->chooseSharedGpu(c, 0, task, rng), 0);
    QCOMPARE(bestFitGpu(n, task.milli), 1);
  }

  // Paper §4.2, one case per row, on a node with 8 cores and GPUs [1000, 600, 250, 0] (idle 1850).
  void fragmentCases() {
    const NodeView n = node(8000, {1000, 600, 250, 0}, 2);
    QCOMPARE(idleMilli(n), int64_t{1850});
    // CPU-only classes see every idle milli as fragment, whether the CPU fits (XL) or not (XR).
    QCOMPARE(fragmentFor(n, pod(4000, 0, 0)), int64_t{1850});
    QCOMPARE(fragmentFor(n, pod(16000, 0, 0)), int64_t{1850});
    // No access: the node's model is not in the class's list.
    QCOMPARE(fragmentFor(n, pod(1000, 1, 500, 1u << 3)), int64_t{1850});
    QCOMPARE(fragmentFor(n, pod(1000, 1, 500, 1u << 2)), int64_t{250});  // accessible: Q3
    // Q3 (GPU and CPU fit): only GPUs that cannot hold the class on their own.
    QCOMPARE(fragmentFor(n, pod(1000, 1, 500)), int64_t{250});
    QCOMPARE(fragmentFor(n, pod(1000, 1, 200)), int64_t{0});
    QCOMPARE(fragmentFor(n, pod(1000, 1, 1000)), int64_t{850});
    QCOMPARE(fragmentFor(n, pod(1000, 2, 600)), int64_t{250});  // two GPUs with >= 600
    // Q4 (GPU fits, CPU lacks), Q2 (GPU lacks), Q1 (both lack): all idle milli.
    QCOMPARE(fragmentFor(n, pod(9000, 1, 500)), int64_t{1850});
    QCOMPARE(fragmentFor(n, pod(1000, 2, 1000)), int64_t{1850});
    QCOMPARE(fragmentFor(n, pod(9000, 2, 1000)), int64_t{1850});
    // F weighs the classes by their probability.
    const std::vector<TypicalPod> mix = {
        {pod(1000, 1, 500), 0.5}, {pod(4000, 0, 0), 0.25}, {pod(9000, 1, 500), 0.25}};
    QCOMPARE(nodeFragmentation(n, mix), 0.5 * 250 + 0.25 * 1850 + 0.25 * 1850);
  }

  // Ours: fragments as seen by a class placed repeatedly, CPU counted for every pod.
  void reachFragmentCases() {
    const NodeView n = node(25000, {1000, 1000, 1000, 600}, 0);  // idle 3600
    // Three 8-core pods fit: of the four GPUs that hold 500, the three tightest are reached.
    QCOMPARE(reachFragmentFor(n, pod(8000, 1, 500)), int64_t{1000});
    QCOMPARE(fragmentFor(n, pod(8000, 1, 500)), int64_t{0});  // FGD sees no fragment
    // CPU for all of them: same as FGD.
    QCOMPARE(reachFragmentFor(n, pod(6000, 1, 500)), int64_t{0});
    QCOMPARE(reachFragmentFor(n, pod(6000, 1, 700)), int64_t{600});
    // Two-GPU pods: three GPUs hold 1000, so one pair is reachable.
    QCOMPARE(reachFragmentFor(n, pod(1000, 2, 1000)), int64_t{1600});
    // No CPU for even one pod, CPU-only classes, no access: all idle milli.
    QCOMPARE(reachFragmentFor(n, pod(26000, 1, 500)), int64_t{3600});
    QCOMPARE(reachFragmentFor(n, pod(1000, 0, 0)), int64_t{3600});
    QCOMPARE(reachFragmentFor(n, pod(1000, 1, 500, 1u << 1)), int64_t{3600});
  }

  // A partial reach weight blends the two measures: on a node where they differ (8-core pods:
  // FGD 0, reach 1000) a weight of 0.75 gives 750, neither of the two.
  void reachWeightBlendsReachAndFgd() {
    const NodeView n = node(25000, {1000, 1000, 1000, 600}, 0);
    const std::vector<TypicalPod> mix = {{pod(8000, 1, 500), 1.0}};
    frag::Measure m{false, true, false, 4000};
    QCOMPARE(fragmentation(m, n, mix), 1000.0);
    m.reachWeight = 0.75;
    QCOMPARE(fragmentation(m, n, mix), 750.0);
    m.reachWeight = 0;
    QCOMPARE(fragmentation(m, n, mix), 0.0);
  }

  // A sharing pod's GPU when the truncated score ties: FGD takes the first GPU by index, exact
  // ties the one that lowers F most. Node: GPUs with 1000, 400 and 700 milli free; pod 300 milli;
  // the mix: 300-milli pods (4 of 10) and 700-milli pods (6 of 10).
  //   on GPU 0: 700 left, F stays 400 x 0.6 = 240 (the 400 cannot take 700);
  //   on GPU 1: 100 left, F = 100 x 1 = 100 (nothing fits 100) - the lowest;
  //   on GPU 2: 400 left, F = (400 + 400) x 0.6 = 480.
  // F before is 240; at scale 4000 the drops of 0 and 140 milli truncate to the same score (50).
  void exactGpuTiesTakeTheLowestF() {
    const NodeView n = node(64000, {1000, 400, 700}, 0);
    const std::vector<TypicalPod> mix = {{pod(1000, 1, 300), 0.4}, {pod(1000, 1, 700), 0.6}};
    auto F = [&](const NodeView& v) { return nodeFragmentation(v, mix); };
    QCOMPARE(F(n), 240.0);
    QCOMPARE(F(withPod(n, pod(1000, 1, 300), 1)), 100.0);
    QCOMPARE(fgdScore(240, 240, 4000), fgdScore(240, 100, 4000));
    QCOMPARE(frag::bestMove(n, pod(1000, 1, 300), F, 4000).gpu, 0);
    QCOMPARE(frag::bestMove(n, pod(1000, 1, 300), F, 4000, 0xffu, true).gpu, 1);
    // At FGD's own scale the drop of 140 is a better score, so both take GPU 1.
    QCOMPARE(frag::bestMove(n, pod(1000, 1, 300), F, 1000).gpu, 1);
  }

  void fgdScoreIsTheTruncatedSigmoid() {
    QCOMPARE(fgdScore(1000, 0), int64_t{73});  // int(sigmoid(1) * 100)
    QCOMPARE(fgdScore(0, 0), int64_t{50});
    QCOMPARE(fgdScore(0, 1000), int64_t{26});
  }

  // Node: 64 cores and 4 of 8 GPUs free; pod: 16 cores, one whole GPU.
  void dotProductAndBestFitFormulas() {
    const NodeView n = node(64000, {1000, 1000, 1000, 1000, 0, 0, 0, 0});
    const PodDemand p = pod(16000, 1, 1000);
    // [0.5, 0.5] . [0.125, 0.125] = 0.125; int(100 * (1 - 0.125 / 2)) = 93.
    QCOMPARE(dotProductScore(n, p), int64_t{93});
    // 0.5 * 48000 / 128000 + 0.5 * 3000 / 8000 = 0.375; int(100 * 0.625) = 62.
    QCOMPARE(bestFitScore(n, p), int64_t{62});
    // A tighter node scores higher under both.
    const NodeView tight = node(20000, {1000, 0, 0, 0, 0, 0, 0, 0});
    QVERIFY(bestFitScore(tight, p) > bestFitScore(n, p));
    QVERIFY(dotProductScore(tight, p) > dotProductScore(n, p));
  }

  void gpuPackingFormula() {
    const PodDemand whole = pod(1000, 1, 1000);
    const PodDemand share = pod(1000, 1, 300);
    QCOMPARE(gpuPackingScore(node(64000, std::vector<int32_t>(8, 1000)), whole),
             int64_t{25});                                                     // idle node: 33 - 8
    QCOMPARE(gpuPackingScore(node(64000, {1000, 1000}), whole), int64_t{31});  // 33 - 2
    // A used node where the pod needs a free GPU: 50 - 1.
    QCOMPARE(gpuPackingScore(node(64000, {1000, 400}), whole), int64_t{49});
    QCOMPARE(gpuPackingScore(node(64000, {1000, 1000, 1000, 200}), pod(1000, 2, 1000)),
             int64_t{48});
    // A shared GPU with 600 left: 100 - (600 * 100 / 1000) / 10 = 94; the tightest one is used.
    QCOMPARE(gpuPackingScore(node(64000, {1000, 600, 800}), share), int64_t{94});
    QCOMPARE(gpuPackingScore(node(64000, {1000, 200}), pod(1000, 2, 1000)), int64_t{0});
    QCOMPARE(gpuPackingScore(node(64000, {1000, 200}), pod(1000, 0, 0)), int64_t{0});
  }

  void gpuClusteringFormula() {
    const NodeView half = node(64000, {1000, 1000, 1000, 1000, 0, 0, 0, 0});  // base 12
    const PodDemand share = pod(1000, 1, 300);
    const PodDemand one = pod(1000, 1, 1000);
    GpuTags sharing;
    addGpuTag(sharing, share);
    QCOMPARE(gpuClusteringScore(half, sharing, share), int64_t{12 + 75});  // its only kind
    GpuTags mixed = sharing;
    addGpuTag(mixed, one);
    QCOMPARE(gpuClusteringScore(half, mixed, one), int64_t{12 + 50});  // among several
    QCOMPARE(gpuClusteringScore(half, sharing, one), int64_t{12});     // other kinds only
    QCOMPARE(gpuClusteringScore(node(64000, std::vector<int32_t>(8, 1000)), GpuTags{}, one),
             int64_t{0 + 25});  // idle
    QCOMPARE(gpuClusteringScore(half, GpuTags{}, pod(1000, 0, 0)), int64_t{0});
    QCOMPARE(gpuTagOf(pod(1000, 4, 1000)), 4);
    QCOMPARE(gpuTagOf(pod(1000, 0, 0)), -1);
  }

  void gpuChoiceInsideANode() {
    QCOMPARE(bestFitGpu(node(1000, {1000, 300, 600, 300}), 250), 1);  // least left, lowest index
    QCOMPARE(bestFitGpu(node(1000, {200, 100}), 250), -1);
    QCOMPARE(firstFreeGpus(node(1000, {1000, 500, 1000, 1000}), 2), (std::vector<int>{0, 2}));
    // Sub: ascending free milli, so a 2 x 400 pod takes the 500 and the 600.
    const NodeView after = withPod(node(9000, {1000, 600, 500}), pod(1000, 2, 400));
    QCOMPARE(after.left[0], 1000);
    QCOMPARE(after.left[1], 200);
    QCOMPARE(after.left[2], 100);
    QCOMPARE(after.cpuLeft, int64_t{8000});
    QVERIFY(gpuFilterPasses(node(1000, {1000, 600}), pod(1000, 2, 600)));
    QVERIFY(!gpuFilterPasses(node(1000, {1000, 600}), pod(1000, 2, 700)));
    QVERIFY(!gpuFilterPasses(node(1000, {1000}, 1), pod(1000, 1, 100, 1u << 0)));
    QVERIFY(gpuFilterPasses(node(1000, {}), pod(1000, 0, 0)));
  }

  void tiesGoToTheLowestRank() {
    ClusterState c;
    c.tieRank = {5, 2, 9, 1};
    const std::vector<int> candidates{0, 1, 2, 3};
    const std::vector<double> scores{7, 7, 7, 3};
    Rng rng(1);
    QCOMPARE(pickArgmax(c, candidates, scores, rng), 1);
    c.tieRank.clear();  // uniform: every tied node comes up
    std::set<int> seen;
    for (int i = 0; i < 200; ++i) seen.insert(pickArgmax(c, candidates, scores, rng));
    QCOMPARE(seen, (std::set<int>{0, 1, 2}));
  }

  // Count order, ties by the tuple descending, the class that crosses 95 % included, renormalised.
  void typicalPodsSelection() {
    const auto mix = selectTypicalPods({{pod(1000, 1, 500), "", 30},
                                        {pod(2000, 1, 1000), "", 50},
                                        {pod(500, 0, 0), "", 5},
                                        {pod(3000, 1, 1000), "", 15}},
                                       0.95);
    QCOMPARE(mix.size(), size_t{3});  // 50 + 30 + 15 = 95 >= 95
    QCOMPARE(mix[0].demand.cpu, int64_t{2000});
    QCOMPARE(mix[1].demand.cpu, int64_t{1000});
    QCOMPARE(mix[2].demand.cpu, int64_t{3000});
    QVERIFY(std::abs(mix[0].weight - 50.0 / 95) < 1e-12);
    const auto tied = selectTypicalPods({{pod(1000, 1, 500), "", 10}, {pod(2000, 1, 500), "", 10}});
    QCOMPARE(tied[0].demand.cpu, int64_t{2000});  // the larger tuple first
  }

  // Tuning up: the shuffled originals first, then clones until the next clone's per-GPU milli
  // would pass 1.3 x capacity; tuning down drops pods until the total is at most the target.
  // The offline packer behind the bound: largest per-GPU demand first, shares best-fit.
  void offlinePacker() {
    // 2 GPUs: 600 and 600 take one each (400 left on both); 500 fits nowhere; 400 fills one.
    QCOMPARE(packBestFitDecreasing({{1, 400}, {1, 600}, {1, 500}, {1, 600}}, 2), int64_t{1600});
    // Whole GPUs first: a 2-GPU pod and a 1-GPU pod use all 3; the share finds no room.
    QCOMPARE(packBestFitDecreasing({{1, 300}, {2, 1000}, {1, 1000}}, 3), int64_t{3000});
    // Best fit: 250 tops up the 700 GPU (300 left), so 200 and 100 share the second GPU.
    QCOMPARE(packBestFitDecreasing({{1, 250}, {1, 100}, {1, 700}, {1, 200}}, 2), int64_t{1250});
    // On the real default trace the packer leaves less than FGD (4.69 at seed 42) yet not 0.
    auto nodes = readOpenbNodeList(openbFile("openb_node_list_gpu_node.csv"));
    auto pods = readOpenbPodRows(openbFile("openb_pod_list_default.csv"));
    QVERIFY(nodes && pods);
    const auto b = openbPackedBound(*nodes, *pods, 42);
    QVERIFY2(b.unallocatedPercent > 1 && b.unallocatedPercent < 4.69,
             qPrintable(QString::number(b.unallocatedPercent)));
    QVERIFY(b.arrivedMilli <= 6212 * 1000 && b.arrivedMilli > 6200 * 1000);
  }

  void tuning() {
    std::vector<OpenbPodRow> pods;
    for (int i = 0; i < 40; ++i)
      pods.push_back(podRow(std::to_string(100 + i), 2000, i % 4 == 0 ? 2 : (i % 5 == 0 ? 0 : 1),
                            i % 3 == 0 ? 500 : 1000));
    const int64_t original = totalOf(pods, [&] {
      std::vector<size_t> all(pods.size());
      std::iota(all.begin(), all.end(), 0);
      return all;
    }());
    const int64_t capacity = original;  // so tuning up must add 30 %
    const auto up = tuneOpenbWorkload(pods, capacity, 1.3, 42);
    QCOMPARE(up.originals, pods.size());
    std::vector<size_t> firsts(up.order.begin(), up.order.begin() + 40);
    std::sort(firsts.begin(), firsts.end());
    for (size_t i = 0; i < firsts.size(); ++i) QCOMPARE(firsts[i], i);  // a permutation
    QVERIFY(up.order.size() > 40);
    const double target = 1.3 * static_cast<double>(capacity);
    const auto total = static_cast<double>(totalOf(pods, up.order));
    QVERIFY(total <= target + 1000);  // a 2-GPU clone may overshoot by one GPU
    QVERIFY(total > target - 1000);   // the stopping clone did not fit
    QVERIFY(up.order != tuneOpenbWorkload(pods, capacity, 1.3, 43).order);

    const auto down = tuneOpenbWorkload(pods, capacity * 2, 0.3, 42);
    QCOMPARE(down.originals, down.order.size());
    const auto kept = static_cast<double>(totalOf(pods, down.order));
    QVERIFY(kept <= 0.6 * static_cast<double>(capacity));
    QVERIFY(kept > 0.6 * static_cast<double>(capacity) - 2000);
  }

  // Four GPUs (1 % = 40 milli); specs force every placement. Arrived % after each pod:
  // 25, 37.5, 62.5, 75, 100, 100, 100.5 (rounds to 100, half to even), 150.5.
  void metricOnAHandComputedRun() {
    const std::vector<OpenbNode> nodes = {
        {"a", 64000, 65536, 1, "A"}, {"b", 64000, 65536, 1, "B"}, {"c", 64000, 65536, 2, "C"}};
    const std::vector<OpenbPodRow> pods = {
        podRow("1", 1000, 1, 1000, "A"), podRow("2", 1000, 1, 500, "B"),
        podRow("3", 1000, 1, 1000, "A"),                                   // a is full: fails
        podRow("4", 1000, 1, 500, "B"),  podRow("5", 1000, 1, 1000, "B"),  // fails
        podRow("6", 1000, 0, 0),         podRow("7", 1000, 1, 20, "C"),
        podRow("8", 1000, 2, 1000, "C"),  // c has [980, 1000]: fails
    };
    for (const auto& policy : openbPolicyNames()) {
      auto run = runOpenbOnce(nodes, pods, {policy, 42, 1.3, OpenbTieBreak::NodeOrder, true});
      QVERIFY2(run.ok(), policy.c_str());
      QCOMPARE(run->pods, size_t{8});
      QCOMPARE(run->failed, size_t{3});
      const auto& v = run->allocatedByArrived;
      QCOMPARE(v.size(), size_t{131});
      QCOMPARE(v[25], 25.0);
      QCOMPARE(v[38], 37.5);
      QCOMPARE(v[62], 37.5);
      QCOMPARE(v[63], 37.5);  // no event: falls back to 62..64
      QCOMPARE(v[75], 50.0);
      QCOMPARE(v[100], 50.17);  // mean(50, 50, 50.5)
      QCOMPARE(v[101], 50.17);
      QVERIFY(std::isnan(v[50]));
      QVERIFY(std::isnan(v[130]));
      QCOMPARE(run->unallocatedAt100, 100.0 - 50.17);
      QCOMPARE(run->allocatedMilli, int64_t{2020});
    }
  }

  // Arrived % rounds half to even: 24.5 -> 24, 25.5 -> 26.
  void metricFromEvents() {
    const auto v =
        openbAllocationByArrived({{400, 400}, {980, 600}, {1000, 800}, {1020, 600}}, 4000);
    QCOMPARE(v[10], 10.0);
    QCOMPARE(v[24], 15.0);
    QCOMPARE(v[25], 20.0);
    QCOMPARE(v[26], 15.0);
    QVERIFY(std::isnan(v[0]));
  }

  void determinism() {
    auto nodes = readOpenbNodeList(openbFile("openb_node_list_gpu_node.csv"));
    auto pods = readOpenbPodRows(openbFile("openb_pod_list_default.csv"));
    QVERIFY(nodes && pods);
    auto a = runOpenbOnce(*nodes, *pods, {"best-fit", 7});
    auto b = runOpenbOnce(*nodes, *pods, {"best-fit", 7});
    QVERIFY(a && b);
    QCOMPARE(a->failed, b->failed);
    QCOMPARE(a->allocatedMilli, b->allocatedMilli);
    QCOMPARE(a->unallocatedAt100, b->unallocatedAt100);
    const int64_t capacity = 6212000;
    QVERIFY(tuneOpenbWorkload(*pods, capacity, 1.3, 7).order ==
            tuneOpenbWorkload(*pods, capacity, 1.3, 7).order);
    QVERIFY(tuneOpenbWorkload(*pods, capacity, 1.3, 7).order !=
            tuneOpenbWorkload(*pods, capacity, 1.3, 8).order);
    // The parallel runner returns the same runs, policy-major then by seed.
    auto runs = runOpenbExperiment(*nodes, *pods, {{"random", "best-fit"}, {7, 8}, 1.3, 2});
    QVERIFY(runs);
    QCOMPARE(runs->size(), size_t{4});
    QCOMPARE(q((*runs)[2].policy), QString("best-fit"));
    QCOMPARE((*runs)[2].seed, uint64_t{7});
    QCOMPARE((*runs)[2].allocatedMilli, a->allocatedMilli);
    QVERIFY((*runs)[3].allocatedByArrived != a->allocatedByArrived);
  }

  void unknownPolicy() {
    auto run = runOpenbOnce({{"a", 1000, 1000, 1, "A"}}, {}, {"tetris"});
    QVERIFY(!run);
    QVERIFY(
        q(run.error().message).startsWith("unknown placement policy 'tetris' (known: random, "));
    QVERIFY(q(run.error().message).contains("fgd, tessera"));
  }

  // The cross-validation's grid names: malformed ones are refused, and the name made of
  // tessera's own parameters runs exactly as `tessera`.
  void tesseraVariants() {
    for (const char* bad :
         {"tessera/c2g0s1000m95", "tessera/c1g0s0m95", "tessera/c1g0s1000", "tessera/c1g0s1000m101",
          "tessera/c1g0s1000m95x", "tessera/c1g0s1000m95r101", "tessera/c1g0s1000m95r",
          "tessera/c1g0s1000m95r40e2", "tessera/c1g0s1000m95r40e"})
      QVERIFY2(!makePolicy(bad, {}), bad);
    const frag::Measure& m = frag::kTesseraMeasure;
    const std::string own = "tessera/c" + std::to_string(int(m.cpuReach)) + "g" +
                            std::to_string(int(m.gpuReach)) + "s" + std::to_string(int(m.scale)) +
                            "m" + std::to_string(int(std::lround(kTesseraMixCoverage * 100))) +
                            "r" + std::to_string(int(std::lround(m.reachWeight * 100))) + "e" +
                            std::to_string(int(m.exactGpuTies));
    auto nodes = readOpenbNodeList(openbFile("openb_node_list_gpu_node.csv"));
    auto pods = readOpenbPodRows(openbFile("openb_pod_list_default.csv"));
    QVERIFY(nodes && pods);
    auto a = runOpenbOnce(*nodes, *pods, {"tessera", 43});
    auto b = runOpenbOnce(*nodes, *pods, {own, 43});
    QVERIFY2(a && b, own.c_str());
    QCOMPARE(b->allocatedByArrived, a->allocatedByArrived);
  }

  void csvErrors() {
    const std::string header =
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
        "deletion_time,scheduled_time\n";
    auto ok = parseOpenbPodRows(header + "p0,12000,16384,1,1000,V100M16|V100M32,LS,Running,0,1,0\n",
                                "pods.csv");
    QVERIFY(ok);
    QCOMPARE(ok->size(), size_t{1});
    QCOMPARE((*ok)[0].spec, (std::vector<std::string>{"V100M16", "V100M32"}));
    auto bad = parseOpenbPodRows(header + "p0,12000,16384,1,1000,,LS,Running,0,1,0\n" +
                                     "p1,12x00,16384,1,1000,,LS,Running,0,1,0\n",
                                 "pods.csv");
    QVERIFY(!bad);
    QCOMPARE(q(bad.error().str()),
             QString("pods.csv:3:4: cpu_milli: expected a whole number, got '12x00'"));
    auto negative = parseOpenbPodRows(header + "p1,100,16384,-1,1000,,LS,Running,0,1,0\n", "p.csv");
    QVERIFY(!negative);
    QCOMPARE(q(negative.error().str()),
             QString("p.csv:2:14: num_gpu: -1 is out of range [0, 1024]"));
    auto short_ =
        parseOpenbNodeList("sn,cpu_milli,memory_mib,gpu,model\nn0,64000,262144\n", "n.csv");
    QVERIFY(!short_);
    QCOMPARE(q(short_.error().str()), QString("n.csv:2:16: expected 5 fields, found 3"));
    auto missing = parseOpenbNodeList("sn,cpu_milli,gpu,model\n", "n.csv");
    QVERIFY(!missing);
    QCOMPARE(
        q(missing.error().str()),
        QString("n.csv:1: the header lacks column memory_mib (it has: sn, cpu_milli, gpu, model)"));
    auto quote = parseOpenbNodeList("sn,cpu_milli,memory_mib,gpu,model\n\"n0,1,1,1,A\n", "n.csv");
    QVERIFY(!quote);
    QCOMPARE(q(quote.error().str()), QString("n.csv:2:1: unterminated double quote"));
    auto absent = readOpenbNodeList("/nonexistent/nodes.csv");
    QVERIFY(!absent);
    QCOMPARE(q(absent.error().str()),
             QString("/nonexistent/nodes.csv: cannot open file: no such file"));
    // The multigpu files have only the first five columns.
    QVERIFY(parseOpenbPodRows("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np,1,1,0,0\n", "m.csv"));
  }

  // One seed of the default trace: FGD leaves much less unallocated than random.
  void realTraceFgdBeatsRandom() {
    auto nodes = readOpenbNodeList(openbFile("openb_node_list_gpu_node.csv"));
    auto pods = readOpenbPodRows(openbFile("openb_pod_list_default.csv"));
    QVERIFY2(nodes, nodes ? "" : nodes.error().str().c_str());
    QVERIFY2(pods, pods ? "" : pods.error().str().c_str());
    QCOMPARE(nodes->size(), size_t{1213});
    QCOMPARE(pods->size(), size_t{8152});
    int gpus = 0;
    for (const auto& n : *nodes) gpus += n.gpus;
    QCOMPARE(gpus, 6212);
    auto fgd = runOpenbOnce(*nodes, *pods, {"fgd", 42});
    auto random = runOpenbOnce(*nodes, *pods, {"random", 42});
    QVERIFY(fgd && random);
    QVERIFY(fgd->pods > 10000);  // 8152 originals + clones up to 1.3x
    QVERIFY(fgd->unallocatedAt100 < random->unallocatedAt100 - 5.0);
    QVERIFY(fgd->unallocatedAt100 > 3.5 && fgd->unallocatedAt100 < 6.0);  // paper: 4.77 (mean)
  }
};

QTEST_APPLESS_MAIN(TstOpenbExperiment)
#include "tst_openb_experiment.moc"
