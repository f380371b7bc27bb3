// Engine::rebind for shared GPUs: Slurm puts a share's gres/shard and an MPS client's gres/mps
// on a GPU of its own choosing (docs/slurm.md), and the engine's map follows - the share or
// client, with its milli-GPU, threads and memory, moves to that GPU. A GPU without room refuses
// the binding and nothing changes; MPS inside MIG instances is never rebound (Slurm cannot say
// which instance). Whole GPUs: tst_engine (aRunningJobIsReboundToTheClustersGpus).
#include <QtTest>

#include <string>
#include <vector>

#include "clusterspec/cluster_spec.h"
#include "scheduler/engine.h"

using namespace tessera;

namespace {

// s1: two L40S time-sliced 2 ways. p1: two L40S running MPS (100 % of threads each). m1: an
// A100 in MIG mode with MPS inside its two instances.
std::shared_ptr<const Cluster> cluster() {
  static const std::shared_ptr<const Cluster> c = [] {
    auto loaded = loadClusterSpec(R"(version: 1
name: rebind
node_templates:
  l40s: {gpu_model: L40S, gpus: 2}
  a100: {gpu_model: A100-SXM4-40GB, gpus: 1}
fabric:
  leafs: [{name: l1}]
nodes:
  - {name: s1, template: l40s, leaf: l1}
  - {name: p1, template: l40s, leaf: l1}
  - {name: m1, template: a100, leaf: l1}
overrides:
  - nodes: s1
    gpus: {"0": {timeslice: 2}, "1": {timeslice: 2}}
  - nodes: p1
    gpus: {"0": {mps: {thread_budget: 100}}, "1": {mps: {thread_budget: 100}}}
  - nodes: m1
    gpus: {"0": {mig: "3g.20gb@0,3g.20gb@4", mps: true}}
)",
                                  "rebind.yaml");
    if (!loaded) qFatal("%s", loaded.error().str().c_str());
    return *loaded;
  }();
  return c;
}

Engine makeEngine() {
  Workload w;
  w.teams = {Team{"vision", "", 1, {}}};
  auto e = Engine::create(cluster(), w);
  if (!e) qFatal("%s", e.error().str().c_str());
  return std::move(*e);
}

Job shareJob(JobId id, const char* node, GpuRequest request) {
  Job j;
  j.id = id;
  j.team = "vision";
  j.priorityClass = "experiment";
  j.perTask = request;
  j.pinNodes = {node};
  j.estimatedRuntime = 3600;
  return j;
}

Job fraction(JobId id, int milli) {
  GpuRequest r;
  r.kind = GpuRequest::Kind::Fraction;
  r.milli = milli;
  r.vramMiB = 1024;
  return shareJob(id, "s1", r);
}

Job mpsClient(JobId id, int threads, const char* node = "p1") {
  GpuRequest r;
  r.kind = GpuRequest::Kind::Mps;
  r.mpsThreads = threads;
  r.vramMiB = 4096;
  return shareJob(id, node, r);
}

// Submits and starts `j`; returns the one GPU its one task was given.
GpuId start(Engine& e, const Job& j) {
  const auto id = static_cast<unsigned long long>(j.id);
  if (!e.submit(j)) qFatal("job %llu refused", id);
  e.runCycle();
  const JobRecord* r = e.job(j.id);
  if (!r || r->state != JobState::Running) qFatal("job %llu did not start", id);
  return r->placement->tasks.front().gpus.front();
}

// The node's other GPU (s1 and p1 have two).
GpuId otherOf(GpuId g) {
  const Node& n = cluster()->node(cluster()->gpu(g).node);
  return g == n.firstGpu ? n.firstGpu + 1 : n.firstGpu;
}

Engine::RestoredTask onGpu(GpuId g) {
  return {cluster()->gpu(g).node, {g}, -1};
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

}  // namespace

class TstEngineRebind : public QObject {
  Q_OBJECT

  // A rebind the engine refuses changes nothing: the job's GPU, both GPUs' occupancy, the log.
  static void verifyRefusedChangesNothing(Engine& e, JobId id, GpuId onto, const std::string& why) {
    const GpuId before = e.job(id)->placement->tasks.front().gpus.front();
    const GpuOccupancy there = e.state().gpu(before);
    const GpuOccupancy target = e.state().gpu(onto);
    const size_t events = e.events().size();
    const Status st = e.rebind(id, {onGpu(onto)}, "slurm");
    QVERIFY(!st);
    QVERIFY2(st.error().message.find(why) != std::string::npos, st.error().message.c_str());
    QCOMPARE(e.job(id)->placement->tasks.front().gpus, std::vector<GpuId>{before});
    QVERIFY(e.state().gpu(before) == there);
    QVERIFY(e.state().gpu(onto) == target);
    QCOMPARE(e.events().size(), events);
    QVERIFY2(e.invariantViolations().empty(), joined(e.invariantViolations()).c_str());
  }

 private slots:
  // The share moves with its milli-GPU and memory; the GPU it left is empty again, and the move
  // is audited like a whole GPU's.
  void aShareFollowsTheClustersGpu() {
    Engine e = makeEngine();
    const GpuId engines = start(e, fraction(1, 600));
    const GpuId slurms = otherOf(engines);
    QVERIFY(e.rebind(1, {onGpu(slurms)}, "slurm"));
    QCOMPARE(e.job(1)->placement->tasks.front().gpus, std::vector<GpuId>{slurms});
    QCOMPARE(e.state().gpu(slurms).shares, (std::vector<GpuShare>{{1, 600, 1024}}));
    QCOMPARE(e.state().gpu(slurms).milliUsed, 600);
    QCOMPARE(e.state().gpu(slurms).vramUsedMiB, int64_t{1024});
    QVERIFY(e.state().gpu(engines).shares.empty());
    QCOMPARE(e.state().gpu(engines).milliUsed, 0);
    QCOMPARE(e.events().back().job, JobId{1});
    QCOMPARE(e.events().back().reason.english(),
             "job 1 runs on " + cluster()->gpuName(slurms) + " (as the cluster bound it)");
    QVERIFY2(e.invariantViolations().empty(), joined(e.invariantViolations()).c_str());
  }

  // Two 600-milli shares cannot share a GPU (1000 at most): job 2 takes the other one, and job 1
  // cannot be bound onto it.
  void aShareIsNotReboundOntoAGpuWithoutRoom() {
    Engine e = makeEngine();
    const GpuId first = start(e, fraction(1, 600));
    const GpuId second = start(e, fraction(2, 600));
    QCOMPARE(second, otherOf(first));
    verifyRefusedChangesNothing(e, 1, second, "milli");
  }

  // The MPS client moves with its threads and pinned memory: the GPU it left has the threads
  // back, so the next 60 % client goes there, not beside it.
  void anMpsClientFollowsTheClustersGpu() {
    Engine e = makeEngine();
    const GpuId engines = start(e, mpsClient(1, 60));
    const GpuId slurms = otherOf(engines);
    QVERIFY(e.rebind(1, {onGpu(slurms)}, "slurm"));
    QCOMPARE(e.job(1)->placement->tasks.front().gpus, std::vector<GpuId>{slurms});
    const auto& clients = e.state().gpu(slurms).mpsClients;
    QCOMPARE(clients.size(), size_t{1});
    QCOMPARE(clients.front().job, JobId{1});
    QCOMPARE(clients.front().threads, 60);
    QCOMPARE(clients.front().memoryMiB, int64_t{4096});
    QVERIFY(e.state().gpu(engines).mpsClients.empty());
    QCOMPARE(start(e, mpsClient(2, 60)), engines);
    QVERIFY2(e.invariantViolations().empty(), joined(e.invariantViolations()).c_str());
  }

  // 60 % and 60 % are more than one server's 100 %: the client stays where it is.
  void anMpsClientIsNotReboundOntoAFullServer() {
    Engine e = makeEngine();
    const GpuId first = start(e, mpsClient(1, 60));
    const GpuId second = start(e, mpsClient(2, 60));
    QCOMPARE(second, otherOf(first));
    verifyRefusedChangesNothing(e, 1, second, "thread");
  }

  // A client of a MIG instance's MPS server is never rebound: Slurm's gres/mps index names a
  // GPU, not the instance whose server the client joined.
  void anMpsClientInsideMigIsNotRebound() {
    Engine e = makeEngine();
    const GpuId g = start(e, mpsClient(1, 20, "m1"));
    QVERIFY(e.job(1)->placement->tasks.front().migStart >= 0);
    verifyRefusedChangesNothing(e, 1, g, "an MPS client inside a MIG instance cannot be rebound");
  }
};

QTEST_GUILESS_MAIN(TstEngineRebind)
#include "tst_engine_rebind.moc"
