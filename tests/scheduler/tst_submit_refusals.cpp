// Submit refuses what can never run, as Slurm does at sbatch ("Requested node configuration is
// not available"): a MIG profile no usable GPU offers, GPU models or a pool the cluster lacks, a
// gang larger than the cluster, more GPUs, CPUs or memory per task than any node has, a required
// topology no unit satisfies, and names beyond the input limits. Each refusal names the field and
// the values that exist. A job that could run once nodes return is accepted and waits.
#include <QtTest>

#include <set>

#include "clusterspec/cluster_spec.h"
#include "core/input_limits.h"
#include "scheduler/command.h"
#include "scheduler/engine.h"

using namespace tessera;

namespace {

Workload tenants() {
  Workload w;
  w.teams = {Team{"vision", "", 1, {}}};
  return w;
}

Engine demoEngine() {
  auto e = Engine::create(demoCluster(), tenants());
  if (!e) qFatal("%s", e.error().str().c_str());
  return std::move(*e);
}

Job wholeGpus(JobId id, int gpus, int tasks = 1) {
  Job j;
  j.id = id;
  j.team = "vision";
  j.priorityClass = "experiment";
  j.tasks = tasks;
  j.perTask.kind = GpuRequest::Kind::Whole;
  j.perTask.gpus = gpus;
  return j;
}

Job migJob(JobId id, const std::string& profile) {
  Job j = wholeGpus(id, 0);
  j.perTask = {};
  j.perTask.kind = GpuRequest::Kind::Mig;
  j.perTask.migProfile = profile;
  return j;
}

// The refusal, with the check that there is one.
Error refusal(Engine& e, Job j) {
  const size_t jobs = e.jobs().size();
  auto r = e.submit(std::move(j));
  if (r) qFatal("submitted as %llu, expected a refusal", static_cast<unsigned long long>(*r));
  if (e.jobs().size() != jobs) qFatal("a refused job was kept");
  return r.error();
}

bool has(const Error& e, const std::string& part) {
  return e.message.find(part) != std::string::npos;
}

#define VERIFY_HAS(err, part) \
  QVERIFY2(has(err, part),    \
           qPrintable(QString::fromStdString(err.str() + "  [missing: " + part + "]")))

std::set<std::string> clusterModels(const Cluster& c) {
  std::set<std::string> out;
  for (const Node& n : c.nodes()) out.insert(n.gpuModel().id);
  return out;
}

// Every GPU of the largest node the job could use, and the cluster's total, for whole GPUs.
int largestNode(const Cluster& c) {
  int most = 0;
  for (const Node& n : c.nodes()) most = std::max(most, n.gpuCount());
  return most;
}

}  // namespace

class TstSubmitRefusals : public QObject {
  Q_OBJECT

 private slots:
  void unknownMigProfileListsTheProfilesOnOffer() {
    Engine e = demoEngine();
    const Error err = refusal(e, migJob(1, "9g.999gb"));
    QCOMPARE(err.where.field, std::string("per_task.mig_profile"));
    QCOMPARE(err.refusal, Refusal::BadArgument);
    VERIFY_HAS(err, "job 1: ");
    VERIFY_HAS(err, "9g.999gb");
    // Every profile of every MIG-mode model in the cluster is named, so the operator can pick.
    for (const Node& n : e.cluster().nodes())
      if (n.gpuModel().mig && e.cluster().gpu(n.firstGpu).sharing.mode == SharingMode::Mig)
        for (const auto& p : n.gpuModel().mig->profiles) VERIFY_HAS(err, p.name);
    // A profile that exists is taken.
    QVERIFY(e.submit(migJob(2, "3g.40gb")));
  }

  // A profile of a model the job may not use is no better than a typo.
  void migProfileOfAModelTheJobExcludes() {
    Engine e = demoEngine();
    Job j = migJob(1, "3g.40gb");
    j.model.models = {"L40S"};  // not MIG capable
    const Error err = refusal(e, j);
    QCOMPARE(err.where.field, std::string("per_task.mig_profile"));
    VERIFY_HAS(err, "no GPU it may use is in MIG mode");
  }

  void unknownGpuModelListsTheClusterModels() {
    Engine e = demoEngine();
    Job j = wholeGpus(1, 1);
    j.model.models = {"Z9000"};
    const Error err = refusal(e, j);
    QCOMPARE(err.where.field, std::string("gpu_models"));
    VERIFY_HAS(err, "Z9000");
    for (const auto& m : clusterModels(e.cluster())) VERIFY_HAS(err, m);
    // A long list is named in part: ten names, then a count.
    j.model.models.clear();
    for (int i = 10; i < 30; ++i) j.model.models.push_back("Z" + std::to_string(i));
    const Error many = refusal(e, j);
    VERIFY_HAS(many, "Z10, Z11");
    VERIFY_HAS(many, "and 10 more");
    QVERIFY(!has(many, "Z29"));
    // One model the cluster has among the list is enough: "any of them".
    j.model.models = {"Z9000", *clusterModels(e.cluster()).begin()};
    QVERIFY(e.submit(j));
  }

  void unknownPoolListsThePools() {
    Engine e = demoEngine();
    Job j = wholeGpus(1, 1);
    j.pool = "gpu-heaven";
    const Error err = refusal(e, j);
    QCOMPARE(err.where.field, std::string("pool"));
    for (const auto& p : e.cluster().pools()) VERIFY_HAS(err, p);
  }

  void moreGpusPerTaskThanAnyNode() {
    Engine e = demoEngine();
    const int most = largestNode(e.cluster());
    const Error err = refusal(e, wholeGpus(1, most + 1));
    QCOMPARE(err.where.field, std::string("per_task.gpus"));
    VERIFY_HAS(err, "can never run on this cluster");
    VERIFY_HAS(err, "not enough free GPUs");
    QVERIFY(e.submit(wholeGpus(2, most)));  // the boundary fits
  }

  void gangLargerThanTheCluster() {
    Engine e = demoEngine();
    // One-GPU tasks fit on every GPU that is not partitioned or shared: that many is the
    // cluster's room, one more never fits.
    int room = 0;
    for (const Gpu& g : e.cluster().gpus()) room += g.sharing.mode == SharingMode::Exclusive;
    const Error err = refusal(e, wholeGpus(1, 1, room + 1));
    QCOMPARE(err.where.field, std::string("tasks"));
    VERIFY_HAS(err, "the gang needs " + std::to_string(room + 1));
    VERIFY_HAS(err, "room for " + std::to_string(room));
    QVERIFY(e.submit(wholeGpus(2, 1, room)));
  }

  void cpusAndMemoryBeyondAnyNode() {
    Engine e = demoEngine();
    int cpus = 0;
    int64_t memory = 0;
    for (const Node& n : e.cluster().nodes()) {
      cpus = std::max(cpus, n.hw->cpus);
      memory = std::max(memory, n.hw->memoryMiB);
    }
    Job j = wholeGpus(1, 1);
    j.cpusPerTask = cpus + 1;
    Error err = refusal(e, j);
    QCOMPARE(err.where.field, std::string("cpus_per_task"));
    VERIFY_HAS(err, "not enough free CPUs");
    j.cpusPerTask = 0;
    j.memoryMiBPerTask = memory + 1;
    err = refusal(e, j);
    QCOMPARE(err.where.field, std::string("memory_mib_per_task"));
    VERIFY_HAS(err, "not enough free memory");
    // The boundaries fit (the largest node of each kind).
    Job mostMemory = wholeGpus(2, 1);
    mostMemory.memoryMiBPerTask = memory;
    QVERIFY(e.submit(mostMemory));
    Job mostCpus = wholeGpus(3, 1);
    mostCpus.cpusPerTask = cpus;
    QVERIFY(e.submit(mostCpus));
  }

  // The demo's largest NVLink domain is the 72-GPU rack: a required nvlink-domain gang of 76
  // GPUs never fits, though the cluster has room for it spread out.
  void requiredTopologyNoUnitSatisfies() {
    Engine e = demoEngine();
    size_t largest = 0;
    for (const auto& d : e.cluster().nvlinkDomains()) largest = std::max(largest, d.gpus.size());
    const int perTask = 4;
    const int tasks = static_cast<int>(largest) / perTask + 1;
    Job j = wholeGpus(1, perTask, tasks);
    j.topology = {TopologyLevel::NvlinkDomain, true};
    const Error err = refusal(e, j);
    QCOMPARE(err.where.field, std::string("topology"));
    VERIFY_HAS(err, "within one NVLink domain (required)");
    j.topology.required = false;  // preferred: it may spread
    QVERIFY(e.submit(j));
    Job fits = wholeGpus(3, perTask, static_cast<int>(largest) / perTask);
    fits.topology = {TopologyLevel::NvlinkDomain, true};
    QVERIFY(e.submit(fits));
  }

  // What may return is not "never": a job whose only nodes are drained is accepted and waits.
  void drainedNodesStillCount() {
    Engine e = demoEngine();
    const std::string h200 = "H200-SXM-141GB";
    int drained = 0;
    for (const Node& n : e.cluster().nodes())
      if (n.gpuModel().id == h200) {
        QVERIFY(e.drain(n.id, true, literal("maintenance")));
        ++drained;
      }
    QVERIFY(drained > 0);
    Job j = wholeGpus(1, 1);
    j.model.models = {h200};
    QVERIFY(e.submit(j));
    e.runCycle();
    QCOMPARE(e.job(1)->state, JobState::Pending);
    QVERIFY2(e.job(1)->reason.english().find("node not up") != std::string::npos,
             e.job(1)->reason.english().c_str());
  }

  // A job taken back from the store (resubmit) is not refused when it can no longer run: it
  // stays pending with its reason, and nothing stored is lost.
  void aStoredJobThatCanNoLongerRunWaits() {
    Engine e = demoEngine();
    const Job never = wholeGpus(1, largestNode(e.cluster()) + 1);
    QVERIFY(!e.validate(never));
    QVERIFY(e.resubmit(never));
    e.runCycle();
    QCOMPARE(e.job(1)->state, JobState::Pending);
    QVERIFY2(e.job(1)->reason.english().find("no node can host a task") != std::string::npos,
             e.job(1)->reason.english().c_str());
  }

  void namesWithinTheLimits() {
    Engine e = demoEngine();
    Job j = wholeGpus(1, 1);
    j.name = std::string(1 << 20, 'x');
    Error err = refusal(e, j);
    QCOMPARE(err.where.field, std::string("name"));
    VERIFY_HAS(err, "1048576 characters long; at most 253 allowed");
    QVERIFY(err.message.size() < 200);  // the refusal does not repeat the megabyte
    j.name = std::string(kMaxNameChars + 1, 'x');
    QCOMPARE(refusal(e, j).where.field, std::string("name"));
    // Characters, not bytes: 253 two-byte letters are a valid name.
    j.name.clear();
    for (size_t i = 0; i < kMaxNameChars; ++i) j.name += "\xc3\xa9";
    QVERIFY(e.submit(j));
    Job bad = wholeGpus(2, 1);
    bad.name = "ok\xff";
    VERIFY_HAS(refusal(e, bad), "not valid UTF-8");
    bad.name = "two\nlines";
    VERIFY_HAS(refusal(e, bad), "contains a control character");
    bad.name = "fine";
    bad.pool = std::string(300, 'p');
    QCOMPARE(refusal(e, bad).where.field, std::string("pool"));
    bad.pool.clear();
    bad.model.models = {"H100-SXM5-80GB", std::string(254, 'm')};
    QCOMPARE(refusal(e, bad).where.field, std::string("gpu_models[1]"));
    bad.model.models.assign(kMaxListItems + 1, "H100-SXM5-80GB");
    VERIFY_HAS(refusal(e, bad), "4097 items; at most 4096 allowed");
  }

  // The same refusal reaches a command's submit and its dry run; a copy of the engine decides
  // the same way.
  void commandsAndCopiesRefuseAlike() {
    Engine e = demoEngine();
    const auto dry = execute(e, cmd::Submit{migJob(1, "9g.999gb")}, "ops", true);
    QVERIFY(!dry);
    QCOMPARE(dry.error().where.field, std::string("per_task.mig_profile"));
    Engine copy = e;
    QCOMPARE(refusal(copy, migJob(1, "9g.999gb")).message, dry.error().message);
    QVERIFY(copy.submit(migJob(1, "3g.40gb")));
  }

  // An operator's words have limits too; a refused command leaves no audit line that repeats
  // them.
  void commandTextsWithinTheLimits() {
    Engine e = demoEngine();
    const std::string node = e.cluster().nodes().front().name;
    const size_t events = e.events().size();
    auto r =
        execute(e, cmd::Drain{node, literal(std::string(kMaxReasonChars + 1, 'r'))}, "ops", false);
    QVERIFY(!r);
    QCOMPARE(r.error().where.field, std::string("reason"));
    QCOMPARE(e.events().size(), events);
    QCOMPARE(e.state().nodeState(0), NodeState::Up);
    QVERIFY(execute(e, cmd::Drain{node, literal(std::string(kMaxReasonChars, 'r'))}, "ops", false));
    cmd::CreateReservation res;
    res.id = std::string(kMaxNameChars + 1, 'i');
    res.nodes = {node};
    res.until = 3600;
    r = execute(e, res, "ops", false);
    QVERIFY(!r);
    QCOMPARE(r.error().where.field, std::string("id"));
  }

  // Workload files: a job that can never run names its place in the file.
  void aWorkloadFileNamesTheJobsPlace() {
    const std::string yaml = R"(version: 1
teams: [{name: vision}]
jobs:
  - {id: 1, team: vision, priority: experiment, gpus: 1}
  - {id: 2, team: vision, priority: experiment, gpus: 16}
)";
    auto w = loadWorkload(yaml, "bad-workload.yaml");
    QVERIFY2(w, w ? "" : w.error().str().c_str());
    auto e = Engine::create(demoCluster(), *w);
    QVERIFY(!e);
    const std::string where = e.error().str();
    QVERIFY2(where.starts_with("bad-workload.yaml:5:"), where.c_str());
    QVERIFY2(where.find("job 2: ") != std::string::npos, where.c_str());
    // Field limits are checked while reading, with the place too.
    auto longName = loadWorkload(
        "version: 1\nteams: [{name: vision}]\njobs:\n  - {id: 1, team: vision, priority: "
        "experiment, gpus: 1, name: " +
            std::string(300, 'n') + "}\n",
        "long.yaml");
    QVERIFY(!longName);
    QVERIFY2(longName.error().str().starts_with("long.yaml:4:") &&
                 longName.error().str().find("name: 300 characters long") != std::string::npos,
             longName.error().str().c_str());
  }
};

QTEST_APPLESS_MAIN(TstSubmitRefusals)
#include "tst_submit_refusals.moc"
