// One placement brain: the openb experiment's fast path (sim/openb_policies) and the engine's
// `fgd` / `fgd-reach` score plugins choose the same node for the same pod, over a long random
// sequence of cluster states (fixed seed). The engine really runs (submit, cycle, complete); the
// fast path sees the same state through its own node views, kept here from the engine's
// placements, and the engine's request mix. Ties are broken by the engine's order (fewest free
// whole GPUs, then the first node), given to the fast path as its node order.
#include <QtTest>

#include <random>
#include <string>
#include <vector>

#include "clusterspec/cluster_spec.h"
#include "scheduler/engine.h"
#include "sim/openb_policies.h"

using namespace tessera;
namespace fr = tessera::frag;

namespace {

const std::vector<std::string> kModels{"T4", "V100-SXM2-32GB", "A10"};
constexpr int kNodes = 40;

struct NodeSpec {
  int model = 0, gpus = 0, cpus = 0;
  int64_t memGiB = 0;
  bool shared = false;  // time-sliced GPUs (shares), else exclusive (whole GPUs)
};

int pick(std::mt19937_64& rng, int n) {
  return static_cast<int>(rng() % static_cast<uint64_t>(n));
}

std::vector<NodeSpec> randomNodes(std::mt19937_64& rng) {
  const int gpus[] = {1, 2, 4, 8};
  const int cpus[] = {16, 32, 64, 96};
  std::vector<NodeSpec> out;
  for (int i = 0; i < kNodes; ++i)
    out.push_back({pick(rng, 3), gpus[pick(rng, 4)], cpus[pick(rng, 4)], 128 + 128 * pick(rng, 2),
                   pick(rng, 3) == 0});
  return out;
}

std::shared_ptr<const Cluster> clusterOf(const std::vector<NodeSpec>& nodes) {
  std::string y = "version: 1\nname: equivalence\nnode_templates:\n";
  for (size_t i = 0; i < nodes.size(); ++i)
    y += "  t" + std::to_string(i) + ": {gpu_model: " + kModels[size_t(nodes[i].model)] +
         ", gpus: " + std::to_string(nodes[i].gpus) + ", cpus: " + std::to_string(nodes[i].cpus) +
         ", memory_gib: " + std::to_string(nodes[i].memGiB) + ", nvlink: none}\n";
  y += "fabric:\n  leafs: [{name: l1}]\nnodes:\n";
  for (size_t i = 0; i < nodes.size(); ++i) {
    y += "  - {name: n" + std::to_string(i) + ", template: t" + std::to_string(i) + ", leaf: l1";
    if (nodes[i].shared)
      y += ", gpus: {\"0-" + std::to_string(nodes[i].gpus - 1) + "\": {timeslice: 64}}";
    y += "}\n";
  }
  auto c = loadClusterSpec(y, "equivalence.yaml");
  if (!c) qFatal("%s", c.error().str().c_str());
  return *c;
}

// The fast path's model: node i's GPUs are model bit nodes[i].model; a pod's list is a mask.
uint32_t maskOf(const std::vector<std::string>& models) {
  if (models.empty()) return fr::kAnyModel;
  uint32_t m = 0;
  for (size_t i = 0; i < kModels.size(); ++i)
    if (std::find(models.begin(), models.end(), kModels[i]) != models.end()) m |= 1u << i;
  return m;
}

fr::PodDemand podOf(const Job& j) {
  fr::PodDemand p;
  p.cpu = int64_t{j.cpusPerTask} * 1000;
  p.mem = j.memoryMiBPerTask;
  if (j.perTask.kind == GpuRequest::Kind::Whole) p.numGpu = j.perTask.gpus, p.milli = 1000;
  if (j.perTask.kind == GpuRequest::Kind::Fraction) p.numGpu = 1, p.milli = j.perTask.milli;
  p.models = fr::isCpuOnly(p) ? fr::kAnyModel : maskOf(j.model.models);
  return p;
}

Job randomJob(std::mt19937_64& rng, JobId id) {
  Job j;
  j.id = id;
  j.team = "t";
  j.priorityClass = "experiment";
  j.estimatedRuntime = 3600;
  j.cpusPerTask = 1 + pick(rng, 16);
  j.memoryMiBPerTask = 1024 * (1 + pick(rng, 48));
  const int kind = pick(rng, 20);
  const int milli[] = {100, 250, 300, 500, 600, 810, 900};
  const int whole[] = {1, 1, 2, 4, 8};
  if (kind < 3) {
    j.perTask.kind = GpuRequest::Kind::None;
  } else if (kind < 10) {
    j.perTask.kind = GpuRequest::Kind::Fraction;
    j.perTask.milli = milli[pick(rng, 7)];
  } else {
    j.perTask.kind = GpuRequest::Kind::Whole;
    j.perTask.gpus = whole[pick(rng, 5)];
  }
  if (j.perTask.kind != GpuRequest::Kind::None && pick(rng, 5) == 0)
    j.model.models = {kModels[size_t(pick(rng, 3))]};
  return j;
}

// The fast path's state, kept from the engine's placements (its own arithmetic, not the engine's).
struct FastPath {
  std::vector<NodeSpec> specs;
  std::vector<fr::NodeView> views;

  explicit FastPath(std::vector<NodeSpec> s) : specs(std::move(s)) {
    for (const auto& n : specs) {
      fr::NodeView v;
      v.cpuLeft = int64_t{n.cpus} * 1000;
      v.memLeft = n.memGiB * 1024;
      v.gpus = n.gpus;
      v.model = n.model;
      std::fill_n(v.left.begin(), n.gpus, fr::kMilliPerGpu);
      views.push_back(v);
    }
  }
  // The engine lets whole GPUs come only from exclusive GPUs and shares only from time-sliced ones.
  bool fits(size_t i, const fr::PodDemand& p) const {
    const auto& v = views[i];
    if (v.cpuLeft < p.cpu || v.memLeft < p.mem || !fr::gpuFilterPasses(v, p)) return false;
    return fr::isCpuOnly(p) || specs[i].shared == fr::isSharing(p);
  }
  void apply(const TaskAssignment& t, const Job& j, const fr::PodDemand& p, int sign,
             const Cluster& c) {
    auto& v = views[t.node];
    v.cpuLeft -= sign * p.cpu;
    v.memLeft -= sign * p.mem;
    for (GpuId g : t.gpus) {
      const auto local = static_cast<size_t>(g - c.node(t.node).firstGpu);
      v.left[local] -= sign * (j.perTask.kind == GpuRequest::Kind::Fraction ? p.milli : 1000);
    }
  }
};

std::vector<fr::TypicalPod> fastPathMix(const std::vector<DemandShape>& shapes) {
  std::vector<fr::TypicalPod> out;
  for (const auto& d : shapes) {
    Job j;
    j.perTask = d.request;
    j.cpusPerTask = d.cpus;
    j.model = d.model;
    out.push_back({podOf(j), d.weight});
  }
  return out;
}

struct Outcome {
  int compared = 0;  // placements where both chose a node
  QString failure;   // empty when every choice agreed
};

// Runs `steps` random arrivals and completions and compares every placement.
Outcome compareChoices(const char* plugin, const char* fastPolicy, uint64_t seed, int steps) {
  std::mt19937_64 rng(seed);
  const auto specs = randomNodes(rng);
  const auto cluster = clusterOf(specs);
  Workload w;
  w.teams = {Team{"t", "", 1, {}}};
  Policy policy;
  policy.score = {{plugin, 1.0}};
  policy.preemption.plugin = "none";
  policy.backfill.plugin = "none";
  auto engine = Engine::create(cluster, w, policy);
  if (!engine) qFatal("%s", engine.error().str().c_str());
  FastPath fast(specs);
  std::vector<std::pair<Job, fr::PodDemand>> running;
  Outcome out;
  for (int step = 0; step < steps; ++step) {
    if (!running.empty() && pick(rng, 10) < 4) {  // a completion
      const auto k = static_cast<size_t>(pick(rng, static_cast<int>(running.size())));
      const auto& [job, pod] = running[k];
      fast.apply(engine->job(job.id)->placement->tasks.front(), job, pod, -1, *cluster);
      if (!engine->complete(job.id).ok()) return {out.compared, "complete failed"};
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
      continue;
    }
    const Job job = randomJob(rng, static_cast<JobId>(step + 1));
    if (!engine->submit(job)) continue;  // never fits this cluster: the engine refuses it
    const fr::PodDemand pod = podOf(job);
    openb::ClusterState c;
    c.nodes = fast.views;
    c.podCount.assign(c.nodes.size(), 0);
    c.tags.assign(c.nodes.size(), {});
    std::vector<int> feasible;
    for (size_t i = 0; i < c.nodes.size(); ++i) {
      if (fast.fits(i, pod)) feasible.push_back(static_cast<int>(i));
      // The engine's tie order: fewest free whole GPUs, then the first node.
      c.tieRank.push_back(static_cast<uint32_t>(
          engine->state().freeWholeGpusOnNode(static_cast<NodeId>(i)) * kNodes + int(i)));
    }
    openb::PolicyContext ctx{fastPathMix(engine->context().demand)};
    auto fastChoice = openb::makePolicy(fastPolicy, ctx);
    openb::Rng unused(0);
    engine->runCycle();
    const JobRecord* r = engine->job(job.id);
    const QString at = QString("step %1: ").arg(step);
    if (feasible.empty()) {
      if (r->state == JobState::Running)
        return {out.compared, at + "the engine placed a pod nothing fits"};
      if (!engine->cancel(job.id, "test", Text::literal("no room")).ok())
        return {out.compared, at + "cancel failed"};
      continue;
    }
    const int expected = fastChoice->chooseNode(c, pod, feasible, unused);
    if (r->state != JobState::Running)
      return {
          out.compared,
          at + QString("the engine left the pod pending; the fast path picks n%1").arg(expected)};
    // The node only: inside it the engine puts a share on its fullest GPU, and the state here
    // follows the engine's GPUs.
    const auto& task = r->placement->tasks.front();
    if (static_cast<int>(task.node) != expected)
      return {out.compared, at + QString("engine n%1, fast path n%2").arg(task.node).arg(expected)};
    fast.apply(task, job, pod, +1, *cluster);
    running.emplace_back(job, pod);
    ++out.compared;
  }
  return out;
}

}  // namespace

class TestFgdEngineEquivalence : public QObject {
  Q_OBJECT

 private slots:
  // FGD as published (the openb `fgd` policy's score) is the engine's `fgd` plugin.
  void fgdChoosesLikeTheEngine() {
    const Outcome o = compareChoices("fgd", "fgd", 20261127, 3000);
    QVERIFY2(o.failure.isEmpty(), qPrintable(o.failure));
    QVERIFY2(o.compared > 1000, qPrintable(QString::number(o.compared)));
  }
  // Our CPU-aware variant (the openb `tessera` policy's score) is the engine's `fgd-reach`.
  void reachChoosesLikeTheEngine() {
    const Outcome o = compareChoices("fgd-reach", "tessera-oracle", 7, 3000);
    QVERIFY2(o.failure.isEmpty(), qPrintable(o.failure));
    QVERIFY2(o.compared > 1000, qPrintable(QString::number(o.compared)));
  }
};

QTEST_GUILESS_MAIN(TestFgdEngineEquivalence)
#include "tst_fgd_engine_equivalence.moc"
