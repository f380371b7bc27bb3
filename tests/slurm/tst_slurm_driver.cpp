// The Slurm driver's reconciliation without Slurm: recorded sinfo, small squeue documents, and a
// replaying runner that shows exactly which commands a step ran. The real daemons:
// tst_slurm_executor.
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "clusterspec/cluster_spec.h"
#include "executor/slurm_driver.h"
#include "executor/slurm_executor.h"
#include "replay_runner.h"

using namespace tessera;
using namespace tessera::slurm;
using json = nlohmann::json;

namespace {

std::string readData(const char* name) {
  std::ifstream in(std::string(TESSERA_TEST_DATA) + "/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string squeueOf(json jobs) {
  return json{{"meta", {{"plugin", {{"type", "openapi/v0.0.38"}}}}},
              {"errors", json::array()},
              {"jobs", std::move(jobs)}}
      .dump();
}

// One job of Tessera's database "db" (job 7 is Slurm's 41), in squeue --json's shape.
std::string squeueWith(const std::string& state, const std::string& reason, int priority,
                       const std::string& gres, const std::string& nodes = "",
                       const json& gresDetail = json::array()) {
  json job{{"job_id", 41},
           {"job_state", state},
           {"state_reason", reason},
           {"priority", priority},
           {"comment", "tessera:db.7"},
           {"tres_per_node", gres},
           {"nodes", nodes},
           {"name", "t"},
           {"restart_cnt", 0},
           {"gres_detail", gresDetail}};
  return squeueOf(json::array({job}));
}

// Job 7 of database `db` waiting in the engine, with what its sbatch would be.
JobIntent heldWithSubmit(const std::string& db = "db") {
  JobIntent held;
  held.job = 7;
  SubmitRequest submit;
  submit.tesseraId = db + ".7";
  submit.timeLimitMinutes = 5;
  submit.wrap = "true";
  held.submit = submit;
  return held;
}

std::vector<std::string> programs(const ReplayRunner& r) {
  std::vector<std::string> out;
  for (const auto& q : r.requests) {
    std::string line = q.argv.at(0);
    for (size_t i = 1; i < q.argv.size() && i < 3; ++i) line += " " + q.argv[i];
    out.push_back(line);
  }
  return out;
}

JobIntent placed(std::vector<std::string> nodes) {
  JobIntent i;
  i.job = 7;
  i.want = JobIntent::Want::Placed;
  i.nodes = std::move(nodes);
  return i;
}

// An engine on the Tessera side of the test cluster, with one team "vision".
std::unique_ptr<Engine> fixtureEngine() {
  auto cluster = loadClusterSpecFile(std::string(TESSERA_TEST_DATA) + "/fixture-cluster.yaml");
  if (!cluster) qFatal("%s", cluster.error().str().c_str());
  Workload w;
  w.teams = {Team{"vision", "", 1, {}}};
  auto engine = Engine::create(*cluster, w);
  if (!engine) qFatal("%s", engine.error().str().c_str());
  return std::make_unique<Engine>(std::move(*engine));
}

// The recorded sinfo with node1 and node2 configured for exact GPUs (per-device GRES types).
std::string sinfoWithDeviceTypes() {
  json doc = json::parse(readData("sinfo.json"));
  for (json& n : doc["nodes"])
    if (n["name"] != "node3") n["gres"] = "gpu:h100_g0:1,gpu:h100_g1:1,gpu:h100_g2:1,gpu:h100_g3:1";
  return doc.dump();
}

// squeue-mps-one-sharing.json (record-mps.sh): mps:60 and mps:30 running on node5's GPU 0, and
// Slurm job 3 (tessera:db.7, mps:25) pinned to node5 and released, left PENDING (Resources) by
// gres/mps's one_sharing. With `state` given, job 3 is rewritten to it (held before release,
// running after), its other fields as recorded.
std::string mpsRecording(const std::string& state = "", const std::string& reason = "",
                         int priority = 0) {
  json doc = json::parse(readData("squeue-mps-one-sharing.json"));
  if (state.empty()) return doc.dump();
  for (json& j : doc["jobs"])
    if (j["job_id"] == 3) {
      j["job_state"] = state;
      j["state_reason"] = reason;
      j["priority"] = priority;
      if (state == "RUNNING") {
        j["nodes"] = "node5";
        j["gres_detail"] = json::array({"mps:25(IDX:0)"});
      }
    }
  return doc.dump();
}

// The recorded sinfo with node2 drained for Tessera's MIG repartition, its jobs ended or not.
std::string sinfoMigDrained(bool idle) {
  json doc = json::parse(readData("sinfo.json"));
  for (json& n : doc["nodes"])
    if (n["name"] == "node2") {
      n["state"] = idle ? "idle" : "mixed";
      n["state_flags"] = json::array({"DRAIN"});
      n["reason"] = "tessera: MIG repartition";
    }
  return doc.dump();
}

// node2's MIG layout as the engine would tell it (only the signature and files matter here).
NodeIntents migNodes(const std::string& layout) {
  NodeIntents n;
  MigNodeConfig c;
  c.node = "node2";
  c.signature = "0: " + layout + "\n";
  c.migParted = "version: v1\n# " + layout + "\n";
  c.gresConf = "NodeName=node2 AutoDetect=nvml Name=gpu\n";
  c.slurmConf = "NodeName=node2 Gres=gpu:h100_" + layout + ":2\n";
  n.mig.emplace("node2", c);
  return n;
}

// A driver with the MIG hook `hook` (none when empty) writing into a temporary directory.
struct MigRig {
  QTemporaryDir dir;
  ReplayRunner runner;
  SlurmClient client{runner};
  SlurmDriver driver;
  explicit MigRig(std::vector<std::string> hook) : driver(client, config(std::move(hook))) {
    driver.setInstance("db");
  }
  SlurmDriverConfig config(std::vector<std::string> hook) const {
    SlurmDriverConfig c;
    c.migHook = std::move(hook);
    c.migDir = dir.path().toStdString();
    return c;
  }
  void poll(const std::string& sinfo) {
    runner.answer(squeueOf(json::array()));
    runner.answer(sinfo);
  }
};

// What a step reported about node2.
std::vector<observed::NodeOut> node2(const StepReport& r) {
  std::vector<observed::NodeOut> out;
  for (const auto& n : r.seen.nodes)
    if (n.node == "node2") out.push_back(n);
  return out;
}

// A driver of Tessera's database "db" over a replaying runner.
struct Rig {
  ReplayRunner runner;
  SlurmClient client{runner};
  SlurmDriver driver{client, {}};
  std::string sinfo = readData("sinfo.json");
  Rig() { driver.setInstance("db"); }
  void poll(const std::string& squeue) {
    runner.answer(squeue);
    runner.answer(sinfo);
  }
};

}  // namespace

class TstSlurmDriver : public QObject {
  Q_OBJECT

 private slots:
  // A pin Slurm would accept and then leave pending forever is refused before release: the job
  // goes back to the engine's queue with the reason, and no scontrol ran.
  void anUnfitPinIsRefusedBeforeRelease_data() {
    QTest::addColumn<QString>("node");
    QTest::addColumn<QString>("gres");
    QTest::addColumn<QString>("why");
    QTest::newRow("drained") << "node3"
                             << "gres:gpu:a100:1"
                             << "drained: psu swap";
    QTest::newRow("too few GPUs") << "node1"
                                  << "gres:gpu:h100:8"
                                  << "has 4 gpu:h100";
    QTest::newRow("unknown node") << "node9"
                                  << "gres:gpu:h100:1"
                                  << "no node node9";
    QTest::newRow("no gres/shard") << "node1"
                                   << "gres:shard:h100:1"
                                   << "has no gres/shard";
    QTest::newRow("no gres/mps") << "node2"
                                 << "gres:mps:25"
                                 << "has no gres/mps";
  }
  void anUnfitPinIsRefusedBeforeRelease() {
    QFETCH(QString, node);
    QFETCH(QString, gres);
    QFETCH(QString, why);
    ReplayRunner runner;
    runner.answer(squeueWith("PENDING", "JobHeldUser", 0, gres.toStdString()));
    runner.answer(readData("sinfo.json"));
    SlurmClient client(runner);
    SlurmDriver driver(client, {});
    driver.setInstance("db");
    driver.want(placed({node.toStdString()}));
    const StepReport r = driver.step(100);
    QCOMPARE(r.seen.bounced.size(), size_t{1});
    QCOMPARE(r.seen.bounced.front().job, JobId{7});
    const std::string reason = r.seen.bounced.front().reason.english();
    QVERIFY2(reason.find(why.toStdString()) != std::string::npos, reason.c_str());
    QCOMPARE(programs(runner), (std::vector<std::string>{"squeue --json", "sinfo --json"}));
  }

  // A fitting pin: pinned to exactly the engine's nodes, then released, then given a priority.
  void aFitPinIsPinnedThenReleased() {
    ReplayRunner runner;
    runner.answer(squeueWith("PENDING", "JobHeldUser", 0, "gres:gpu:h100:2"));
    runner.answer(readData("sinfo.json"));
    runner.answer("");  // update
    runner.answer("");  // release
    runner.answer("");  // priority
    SlurmClient client(runner);
    SlurmDriver driver(client, {});
    driver.setInstance("db");
    driver.want(placed({"node2", "node1"}));
    const StepReport r = driver.step(100);
    QVERIFY(r.seen.bounced.empty());
    QCOMPARE(runner.requests.at(2).argv,
             (std::vector<std::string>{"scontrol", "update", "JobId=41", "ReqNodeList=node2,node1",
                                       "NumNodes=2"}));
    QCOMPARE(programs(runner).at(3), std::string("scontrol release 41"));
  }

  // Released, then rejected by Slurm (BadConstraints, priority 0 but not held): held again and
  // back to the engine's queue with Slurm's reason - not pinned and released once more.
  void aRejectedReleaseIsHeldAndBounced() {
    ReplayRunner runner;
    runner.answer(squeueWith("PENDING", "BadConstraints", 0, "gres:gpu:h100:1"));
    runner.answer(readData("sinfo.json"));
    runner.answer("");  // hold
    SlurmClient client(runner);
    SlurmDriver driver(client, {});
    driver.setInstance("db");
    driver.want(placed({"node1"}));
    const StepReport r = driver.step(100);
    QCOMPARE(r.seen.bounced.size(), size_t{1});
    QVERIFY(r.seen.bounced.front().reason.english().find("BadConstraints") != std::string::npos);
    QCOMPARE(programs(runner).at(2), std::string("scontrol hold 41"));
    QCOMPARE(runner.requests.size(), size_t{3});
  }

  // Released, and Slurm still leaves it pending (recorded: gres/mps's one_sharing keeps an mps:25
  // off node5's idle GPU 1, Resources) past the settle time, while the engine counts it running:
  // held again and bounced back to the queue, the reason naming the Slurm job, its reason and the
  // time. Placed on node5 again and left pending again, it is bounced with `hold` too (the
  // engine would put it there once more, forever); a run in between starts the count afresh.
  void aReleaseSlurmLeavesPendingIsBouncedAfterTheSettle() {
    const std::string held = mpsRecording("PENDING", "JobHeldUser", 0);
    const std::string waiting = mpsRecording();
    const std::string running = mpsRecording("RUNNING", "None", 1000000);
    Rig r;
    r.sinfo = readData("sinfo-mps.json");
    auto release = [&](Seconds now, int run) {
      JobIntent i = placed({"node5"});
      i.run = run;
      r.driver.want(i);
      r.poll(held);
      for (int k = 0; k < 3; ++k) r.runner.answer("");  // update, release, priority
      QVERIFY(r.driver.step(now).seen.bounced.empty());
      QCOMPARE(programs(r.runner).at(programs(r.runner).size() - 2),
               std::string("scontrol release 3"));
    };
    bool heldInSlurm = false;  // the last bounce held the Slurm job again
    auto pendingAt = [&](Seconds now, bool bounces = false) {
      r.poll(waiting);
      if (bounces) r.runner.answer("");  // hold
      const size_t before = r.runner.requests.size();
      StepReport seen = r.driver.step(now);
      heldInSlurm =
          r.runner.requests.size() == before + 3 && programs(r.runner).back() == "scontrol hold 3";
      return seen.seen.bounced;
    };
    release(100, 0);
    QVERIFY(pendingAt(110).empty());
    QVERIFY(pendingAt(129).empty());  // Slurm may still be about to start it
    auto bounced = pendingAt(130, true);
    QCOMPARE(bounced.size(), size_t{1});
    QVERIFY(heldInSlurm);
    QCOMPARE(bounced.front().job, JobId{7});
    QVERIFY(!bounced.front().hold);
    const std::string first = bounced.front().reason.english();
    QVERIFY2(first.starts_with("Slurm left job 3 pending (Resources) 30 s after its release on "
                               "node5: "),
             first.c_str());
    QVERIFY2(first.ends_with("; back to the queue"), first.c_str());

    release(131, 1);  // the engine placed it there again
    QVERIFY(pendingAt(150).empty());
    bounced = pendingAt(161, true);
    QCOMPARE(bounced.size(), size_t{1});
    QVERIFY(heldInSlurm);
    QVERIFY(bounced.front().hold);
    QVERIFY2(
        bounced.front().reason.english().find("refused there before, so held") != std::string::npos,
        bounced.front().reason.english().c_str());

    // Released and run: a later wait is no repeat of the old one.
    release(200, 2);
    r.poll(running);
    QVERIFY(r.driver.step(201).seen.bounced.empty());
    JobIntent again = placed({"node5"});
    again.run = 3;
    r.driver.want(again);
    r.poll(running);
    r.runner.answer("");  // requeuehold of the run before the preemption
    (void)r.driver.step(202);
    release(206, 3);
    bounced = pendingAt(236, true);
    QCOMPARE(bounced.size(), size_t{1});
    QVERIFY(!bounced.front().hold);
  }

  // Another database's job with the same engine id is not this one's: tags carry the instance.
  void anotherDatabasesTagIsNotOurs() {
    ReplayRunner runner;
    runner.answer(squeueWith("RUNNING", "None", 1000, "gres:gpu:h100:1", "node1"));
    runner.answer(readData("sinfo.json"));
    runner.answer("41\n");  // the submit of our own job 7
    SlurmClient client(runner);
    SlurmDriver driver(client, {});
    driver.setInstance("other");
    driver.want(heldWithSubmit("other"));
    const StepReport r = driver.step(100);
    QVERIFY(r.seen.ended.empty() && r.seen.gone.empty());
    QCOMPARE(programs(runner).at(2).substr(0, 6), std::string("sbatch"));
  }

  // slurmctld down: squeue exits 0 with an empty list and an error. That is no news that the
  // job is gone: the executor is unavailable and reports nothing.
  void anUnansweredPollChangesNothing() {
    ReplayRunner runner;
    runner.answer(
        json{{"meta", {{"plugin", {{"type", "openapi/v0.0.38"}}}}},
             {"errors", json::array({{{"error", "Unspecified error"},
                                      {"description", "Failed while looking for jobs"}}})},
             {"jobs", json::array()}}
            .dump());
    SlurmClient client(runner);
    SlurmDriver driver(client, {});
    driver.setInstance("db");
    JobIntent running = placed({"node1"});
    driver.want(running);
    const StepReport r = driver.step(100);
    QVERIFY(r.seen.empty());
    QCOMPARE(driver.status().state, ExecutorState::Unavailable);
    QVERIFY(driver.status().detail.find("Unspecified error") != std::string::npos);
    QCOMPARE(runner.requests.size(), size_t{1});
  }

  // Bad launch fields are refused naming the field, before anything is stored or submitted.
  void badLaunchFieldsNameTheField() {
    JobLaunch both;
    both.command = "true";
    both.script = "#!/bin/sh\ntrue\n";
    QCOMPARE(checkLaunchFields(both).error().where.field, std::string("launch.script"));
    JobLaunch nul;
    nul.command = std::string("echo a\0b", 8);
    QCOMPARE(checkLaunchFields(nul).error().where.field, std::string("launch.command"));
    JobLaunch negative;
    negative.command = "true";
    negative.timeLimitMinutes = -1;
    QCOMPARE(checkLaunchFields(negative).error().where.field,
             std::string("launch.time_limit_minutes"));
    JobLaunch script;
    script.script = "#!/bin/sh\n\tsleep 1\r\n";  // lines and tabs are program text
    QVERIFY(checkLaunchFields(script));
  }

  // What Slurm could never run is refused at submit; what it can becomes this sbatch request.
  void theExecutorAdmitsAndTranslatesJobs() {
    auto engine = fixtureEngine();
    SlurmExecutorConfig config;
    config.teamAccounts = {{"vision", "vis"}};
    SlurmExecutor executor(std::make_unique<ReplayRunner>(), config);
    Job j;
    j.id = 12;
    j.team = "vision";
    j.tasks = 2;
    j.perTask.kind = GpuRequest::Kind::Whole;
    j.perTask.gpus = 4;
    j.model.models = {"H100-SXM5-80GB"};
    j.estimatedRuntime = 61;
    QCOMPARE(executor.admit(j).error().where.field, std::string("launch.command"));
    j.launch.command = "srun train";
    QVERIFY(executor.admit(j));
    const auto r = executor.submitRequest(*engine, j);
    QVERIFY(r);
    QCOMPARE(r->tasks, 2);
    QCOMPARE(r->maxNodes, 2);
    QCOMPARE(r->gpusPerTask, std::string("h100:4"));
    QCOMPARE(r->timeLimitMinutes, 2);  // 61 s rounds up
    QCOMPARE(r->account, std::string("vis"));
    QCOMPARE(r->wrap, std::optional<std::string>("srun train"));
    Job mig = j;
    mig.model.models.clear();
    mig.perTask = {};
    mig.perTask.kind = GpuRequest::Kind::Mig;
    mig.perTask.migProfile = "3g.40gb";
    QCOMPARE(executor.submitRequest(*engine, mig)->gpusPerTask, std::string("a100_3g.40gb:1"));
  }

  // A time-sliced share asks for one gres/shard of its model, an MPS share for the gres/mps
  // count of its active-thread percentage, with the MPS limits in its environment; a share of
  // more than one task is refused naming the field.
  void sharesAskForShardsAndMps() {
    auto engine = fixtureEngine();
    SlurmExecutorConfig config;
    SlurmExecutor executor(std::make_unique<ReplayRunner>(), config);
    Job fraction;
    fraction.id = 3;
    fraction.team = "vision";
    fraction.tasks = 1;
    fraction.perTask.kind = GpuRequest::Kind::Fraction;
    fraction.perTask.milli = 250;
    fraction.model.models = {"H100-SXM5-80GB"};
    fraction.launch.command = "python infer.py";
    QVERIFY(executor.admit(fraction));
    auto r = executor.submitRequest(*engine, fraction);
    QCOMPARE(r->gres, std::string("shard:h100:1"));
    QVERIFY(r->gpusPerTask.empty());
    QVERIFY(r->environment.empty());
    fraction.model.models.clear();
    QCOMPARE(executor.submitRequest(*engine, fraction)->gres, std::string("shard:1"));

    Job mps = fraction;
    mps.perTask = {};
    mps.perTask.kind = GpuRequest::Kind::Mps;
    mps.perTask.mpsThreads = 25;
    mps.perTask.vramMiB = 8192;
    QVERIFY(executor.admit(mps));
    r = executor.submitRequest(*engine, mps);
    QCOMPARE(r->gres, std::string("mps:25"));
    QCOMPARE(r->environment, (std::vector<std::pair<std::string, std::string>>{
                                 {"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "25"},
                                 {"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=8192M"}}));
    // A site with another count per GPU: rounded up, so Slurm's percentage is never below ours.
    config.mpsPerGpu = 64;
    SlurmExecutor site(std::make_unique<ReplayRunner>(), config);
    mps.model.models = {"H100-SXM5-80GB"};
    mps.perTask.mpsThreads = 30;
    QCOMPARE(site.submitRequest(*engine, mps)->gres, std::string("mps:h100:20"));
    // Exact GPUs: per-device nodes have no model type, so shares go untyped.
    config.exactGpus = true;
    SlurmExecutor exact(std::make_unique<ReplayRunner>(), config);
    QCOMPARE(exact.submitRequest(*engine, mps)->gres, std::string("mps:20"));

    mps.tasks = 2;
    QCOMPARE(executor.admit(mps).error().where.field, std::string("tasks"));
    fraction.tasks = 3;
    QCOMPARE(executor.admit(fraction).error().where.field, std::string("tasks"));
  }

  // Exact GPUs: a placed job's sbatch names the devices the engine chose (per-device types), a
  // waiting one has no Slurm job yet; a gang whose nodes differ falls back to untyped GPUs.
  void exactGpusAskForTheEnginesDevices() {
    auto engine = fixtureEngine();
    SlurmExecutorConfig config;
    config.exactGpus = true;
    SlurmExecutor executor(std::make_unique<ReplayRunner>(), config);
    const Cluster& c = engine->cluster();
    const Node& n1 = *c.findNode("node1");
    const Node& n2 = *c.findNode("node2");
    JobRecord r;
    r.job.id = 5;
    r.job.team = "vision";
    r.job.tasks = 1;
    r.job.perTask.kind = GpuRequest::Kind::Whole;
    r.job.perTask.gpus = 2;
    r.job.model.models = {"H100-SXM5-80GB"};
    r.job.launch.command = "train";
    JobIntent waiting = executor.intentOf(*engine, r);
    QVERIFY(waiting.submitWhenPlaced);
    QCOMPARE(waiting.submit->gpusPerTask, std::string("h100:2"));  // never sent while waiting

    r.state = tessera::JobState::Running;
    r.placement = GangPlacement{{TaskAssignment{n1.id, {n1.firstGpu + 3, n1.firstGpu + 1}, -1}}};
    JobIntent one = executor.intentOf(*engine, r);
    QCOMPARE(one.submit->gres, std::string("gpu:h100_g1:1,gpu:h100_g3:1"));
    QVERIFY(one.submit->gpusPerTask.empty());

    r.job.tasks = 2;
    r.placement = GangPlacement{{TaskAssignment{n1.id, {n1.firstGpu, n1.firstGpu + 1}, -1},
                                 TaskAssignment{n2.id, {n2.firstGpu, n2.firstGpu + 1}, -1}}};
    QCOMPARE(executor.intentOf(*engine, r).submit->gres,
             std::string("gpu:h100_g0:1,gpu:h100_g1:1"));
    r.placement->tasks[1].gpus = {n2.firstGpu + 2, n2.firstGpu + 3};
    const JobIntent uneven = executor.intentOf(*engine, r);
    QVERIFY(uneven.submit->gres.empty());
    QCOMPARE(uneven.submit->gpusPerTask, std::string("2"));

    config.exactGpus = false;
    SlurmExecutor plain(std::make_unique<ReplayRunner>(), config);
    QVERIFY(!plain.intentOf(*engine, r).submitWhenPlaced);
  }

  // Exact GPUs in the driver: nothing is submitted while the job waits; placed, its Slurm job is
  // made with the devices and released; placed elsewhere after a requeue, the old Slurm job
  // (which asks for other devices) is cancelled and a new one made.
  void exactGpusSubmitAtPlacementAndReplaceForAnother() {
    auto exactJob = [](int64_t id, const std::string& state, const std::string& reason,
                       int priority, const std::string& gres) {
      return json{{"job_id", id},
                  {"job_state", state},
                  {"state_reason", reason},
                  {"priority", priority},
                  {"comment", "tessera:db.7"},
                  {"tres_per_node", gres},
                  {"nodes", ""},
                  {"name", "t"},
                  {"restart_cnt", 0},
                  {"gres_detail", json::array()}};
    };
    Rig r;
    r.sinfo = sinfoWithDeviceTypes();
    r.poll(squeueOf(json::array()));
    r.runner.answer("41\n");  // sbatch
    r.poll(squeueOf(json::array(
        {exactJob(41, "PENDING", "JobHeldUser", 0, "gres:gpu:h100_g2:1,gres:gpu:h100_g3:1")})));
    r.runner.answer("");  // update
    r.runner.answer("");  // release
    r.runner.answer("");  // priority
    JobIntent i = heldWithSubmit();
    i.submitWhenPlaced = true;
    r.driver.want(i);
    (void)r.driver.step(100);
    QCOMPARE(r.runner.requests.size(), size_t{2});  // waiting: no sbatch
    i.want = JobIntent::Want::Placed;
    i.nodes = {"node1"};
    i.submit->gres = "gpu:h100_g3:1,gpu:h100_g2:1";
    r.driver.want(i);
    (void)r.driver.act(101);
    const auto& sbatch = r.runner.requests.at(2).argv;
    QCOMPARE(sbatch.at(0), std::string("sbatch"));
    QVERIFY(std::find(sbatch.begin(), sbatch.end(), "--gres=gpu:h100_g3:1,gpu:h100_g2:1") !=
            sbatch.end());
    (void)r.driver.step(102);  // the same devices in another order: pinned and released
    QCOMPARE(programs(r.runner).at(5), std::string("scontrol update JobId=41"));
    QCOMPARE(programs(r.runner).at(6), std::string("scontrol release 41"));

    Rig again;
    again.sinfo = sinfoWithDeviceTypes();
    again.poll(squeueOf(json::array(
        {exactJob(41, "PENDING", "job requeued in held state", 0, "gres:gpu:h100_g0:1")})));
    again.runner.answer("");      // scancel 41
    again.runner.answer("42\n");  // sbatch
    again.poll(
        squeueOf(json::array({exactJob(41, "CANCELLED", "None", 0, "gres:gpu:h100_g0:1"),
                              exactJob(42, "PENDING", "JobHeldUser", 0, "gres:gpu:h100_g2:1")})));
    again.runner.answer("");  // update
    again.runner.answer("");  // release
    again.runner.answer("");  // priority
    i.nodes = {"node2"};
    i.submit->gres = "gpu:h100_g2:1";
    again.driver.want(i);
    const StepReport replaced = again.driver.step(100);
    QVERIFY(replaced.seen.ended.empty() && replaced.seen.gone.empty());
    QCOMPARE(programs(again.runner).at(2), std::string("scancel --verbose 41"));
    QCOMPARE(programs(again.runner).at(3), std::string("sbatch --parsable --hold"));
    const StepReport placedNew = again.driver.step(101);
    QVERIFY2(placedNew.seen.ended.empty() && placedNew.seen.gone.empty(),
             "the cancelled job is not taken for the job's end");
    QCOMPARE(programs(again.runner).at(6), std::string("scontrol update JobId=42"));
    QCOMPARE(programs(again.runner).at(7), std::string("scontrol release 42"));
  }

  // Slurm lost a job that never ran (slurmctld restarted inside its state-save window): it is
  // submitted again under the same tag, not reported gone (which would cancel it in the engine).
  void aJobSlurmLostBeforeItRanIsSubmittedAgain() {
    Rig r;
    r.poll(squeueOf(json::array()));
    r.runner.answer("41\n");          // sbatch
    r.poll(squeueOf(json::array()));  // lost
    r.runner.answer("42\n");          // sbatch again
    r.driver.want(heldWithSubmit());
    const StepReport first = r.driver.step(100);
    QVERIFY(first.again);  // placed without waiting for the next interval
    const StepReport second = r.driver.step(101);
    QVERIFY(second.seen.gone.empty());
    const auto& again = r.runner.requests.at(5).argv;
    QCOMPARE(again.at(0), std::string("sbatch"));
    QVERIFY(std::find(again.begin(), again.end(), "--comment=tessera:db.7") != again.end());
  }

  // A job that was released and then vanished may have run (and been purged): it is reported
  // gone, never run a second time.
  void aJobLostAfterReleaseIsReportedGone() {
    Rig r;
    r.poll(squeueWith("PENDING", "JobHeldUser", 0, "gres:gpu:h100:1"));
    r.runner.answer("");  // update
    r.runner.answer("");  // release
    r.runner.answer("");  // priority
    r.poll(squeueOf(json::array()));
    JobIntent i = placed({"node1"});
    i.submit = heldWithSubmit().submit;
    r.driver.want(i);
    (void)r.driver.step(100);
    const StepReport lost = r.driver.step(101);
    QCOMPARE(lost.seen.gone.size(), size_t{1});
    QCOMPARE(r.runner.requests.size(), size_t{7});  // no sbatch
  }

  // From the engine's decision to RUNNING seen in Slurm: one sample per released run, at least
  // the time since the decision; none for a job found running (not started by this process).
  void theStartLatencyIsMeasuredOncePerRun() {
    const std::string running = squeueWith("RUNNING", "None", 1000, "gres:gpu:h100:1", "node1");
    Rig r;
    r.poll(squeueWith("PENDING", "JobHeldUser", 0, "gres:gpu:h100:1"));
    r.runner.answer("");  // update
    r.runner.answer("");  // release
    r.runner.answer("");  // priority
    r.poll(running);
    r.poll(running);
    JobIntent i = placed({"node1"});
    i.decidedAt = std::chrono::steady_clock::now() - std::chrono::milliseconds(1500);
    r.driver.want(i);
    QVERIFY(r.driver.step(100).startSeconds.empty());  // released, not running yet
    const StepReport started = r.driver.step(101);
    QCOMPARE(started.startSeconds.size(), size_t{1});
    QVERIFY(started.startSeconds.front() >= 1.5 && started.startSeconds.front() < 60);
    QVERIFY(r.driver.step(102).startSeconds.empty());

    Rig restarted;
    restarted.poll(running);
    i.decidedAt = std::chrono::steady_clock::now() - std::chrono::seconds(5);
    restarted.driver.want(i);
    QVERIFY(restarted.driver.step(100).startSeconds.empty());
  }

  // Slurm bound other GPUs than the engine chose (it picks among the node's free ones): the
  // binding is reported once, so the engine can follow it; the same binding again is no news.
  void aDifferentGpuBindingIsReportedOnce() {
    const std::string running = squeueWith("RUNNING", "None", 1000, "gres:gpu:h100:2", "node1",
                                           json::array({"gpu:h100:2(IDX:2-3)"}));
    Rig r;
    r.poll(running);
    r.poll(running);
    JobIntent i = placed({"node1"});
    i.gpus = {{"node1", {0, 1}}};
    r.driver.want(i);
    const StepReport first = r.driver.step(100);
    QCOMPARE(first.seen.bound.size(), size_t{1});
    QCOMPARE(first.seen.bound.front().job, JobId{7});
    QCOMPARE(first.seen.bound.front().gpus,
             (std::vector<std::pair<std::string, std::vector<int>>>{{"node1", {2, 3}}}));
    QVERIFY(r.driver.step(101).seen.bound.empty());

    Rig same;
    same.poll(running);
    i.gpus = {{"node1", {3, 2}}};  // the engine's own choice: nothing to report
    same.driver.want(i);
    QVERIFY(same.driver.step(100).seen.bound.empty());
  }

  // A share's shard and an MPS client's mps are bound by Slurm too (the lowest GPU with room):
  // their gres_detail, as 22.05 printed it on the fixture's node5 (docs/slurm.md), names the GPU
  // by index and is read under the share's own GRES name - a gpu entry would say nothing here.
  void aShareBindingIsReportedFromItsGres_data() {
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("tres");
    QTest::addColumn<QString>("detail");
    QTest::addColumn<int>("engines");
    QTest::addColumn<int>("slurms");
    QTest::newRow("shard") << "shard"
                           << "gres:shard:h100:1"
                           << "shard:1(IDX:1)" << 0 << 1;
    QTest::newRow("mps") << "mps"
                         << "gres:mps:h100:25"
                         << "mps:25(IDX:0)" << 1 << 0;
  }
  void aShareBindingIsReportedFromItsGres() {
    QFETCH(QString, kind);
    QFETCH(QString, tres);
    QFETCH(QString, detail);
    QFETCH(int, engines);
    QFETCH(int, slurms);
    const std::string running = squeueWith("RUNNING", "None", 1000, tres.toStdString(), "node5",
                                           json::array({detail.toStdString()}));
    Rig r;
    r.poll(running);
    JobIntent i = placed({"node5"});
    i.gres = kind.toStdString();
    i.gpus = {{"node5", {engines}}};
    r.driver.want(i);
    const StepReport seen = r.driver.step(100);
    QCOMPARE(seen.seen.bound.size(), size_t{1});
    QCOMPARE(seen.seen.bound.front().gpus,
             (std::vector<std::pair<std::string, std::vector<int>>>{{"node5", {slurms}}}));

    Rig wholeOnly;
    wholeOnly.poll(running);
    i.gres = "gpu";
    wholeOnly.driver.want(i);
    QVERIFY(wholeOnly.driver.step(100).seen.bound.empty());
  }

  // A placement decided just after a poll is carried out on that poll's view, without polling
  // again; told again before the next poll, it is not released twice.
  void aFreshDecisionIsCarriedOutWithoutAnotherPoll() {
    Rig r;
    r.poll(squeueWith("PENDING", "JobHeldUser", 0, "gres:gpu:h100:1"));
    r.runner.answer("");  // update
    r.runner.answer("");  // release
    r.runner.answer("");  // priority
    JobIntent waiting = placed({"node1"});
    waiting.want = JobIntent::Want::Held;
    waiting.nodes.clear();
    r.driver.want(waiting);
    (void)r.driver.step(100);
    QCOMPARE(r.runner.requests.size(), size_t{2});  // held already: nothing to do
    r.driver.want(placed({"node1"}));
    (void)r.driver.act(100);
    QCOMPARE(programs(r.runner),
             (std::vector<std::string>{"squeue --json", "sinfo --json", "scontrol update JobId=41",
                                       "scontrol release 41", "scontrol update JobId=41"}));
    r.driver.want(placed({"node1"}));
    (void)r.driver.act(100);
    QCOMPARE(r.runner.requests.size(), size_t{5});
  }

  // A job running in Slurm without Tessera's tag (started before the gate, or released behind
  // Tessera) is offered with where it runs and the GPUs Slurm bound, so the engine counts them.
  void aForeignRunningJobIsOfferedWithItsGpus() {
    json job{{"job_id", 77},
             {"job_state", "RUNNING"},
             {"state_reason", "None"},
             {"priority", 4294901759LL},
             {"comment", ""},
             {"user_name", "bob"},
             {"account", "physics"},
             {"tres_per_node", "gres:gpu:h100:2"},
             {"nodes", "node2"},
             {"node_count", 1},
             {"start_time", 90},
             {"gres_detail", json::array({"gpu:h100:2(IDX:1-2)"})},
             {"name", "md"}};
    Rig r;
    r.poll(squeueOf(json::array({job})));
    const StepReport seen = r.driver.step(100);
    QCOMPARE(seen.offers.size(), size_t{1});
    const SlurmOffer& o = seen.offers.front();
    QCOMPARE(o.slurmId, int64_t{77});
    QCOMPARE(o.startTime, int64_t{90});
    QCOMPARE(o.running.size(), size_t{1});
    QCOMPARE(o.running.front().node, std::string("node2"));
    QCOMPARE(o.running.front().gres.front().indices, (std::vector<int>{1, 2}));
    QCOMPARE(o.gpusPerNode, 2);
  }

  // A user's held share is offered with its shard or mps request (the executor refuses it).
  void aUsersShareIsOfferedWithItsSharedGres() {
    json job{{"job_id", 78},
             {"job_state", "PENDING"},
             {"state_reason", "JobHeldUser"},
             {"priority", 0},
             {"comment", ""},
             {"user_name", "bob"},
             {"tres_per_node", "gres:mps:h100:25"},
             {"node_count", 1},
             {"name", "infer"}};
    Rig r;
    r.poll(squeueOf(json::array({job})));
    const StepReport seen = r.driver.step(100);
    QCOMPARE(seen.offers.size(), size_t{1});
    QCOMPARE(seen.offers.front().sharedGres, std::string("mps:h100:25"));
    QCOMPARE(seen.offers.front().gpusPerNode, 0);
  }

  // The engine's maintenance window becomes one MAINT reservation in Slurm, created once; when
  // the engine drops it, it is deleted.
  void aMaintenanceWindowIsMirroredAsAReservation() {
    const std::string idle = squeueOf(json::array());
    Rig r;
    r.poll(idle);
    r.runner.answer("No reservations in the system\n");
    r.runner.answer("Reservation created: tessera-db-psu\n");
    r.poll(idle);
    r.poll(idle);
    r.runner.answer("");  // delete
    NodeIntents nodes;
    ReservationRequest window;
    window.name = "tessera-db-psu";
    window.nodes = {"node3"};
    window.startTime = 5000;
    window.durationMinutes = 60;
    window.maintenance = true;
    nodes.reservations.emplace(window.name, window);
    r.driver.wantNodes(nodes);
    (void)r.driver.step(1000);
    const auto& create = r.runner.requests.at(3).argv;
    QCOMPARE(programs(r.runner).at(2), std::string("scontrol -o show"));
    QCOMPARE(std::vector<std::string>(create.begin(), create.begin() + 4),
             (std::vector<std::string>{"scontrol", "create", "reservation",
                                       "ReservationName=tessera-db-psu"}));
    QVERIFY(std::find(create.begin(), create.end(), "Flags=MAINT,IGNORE_JOBS") != create.end());
    QVERIFY(std::find(create.begin(), create.end(), "Nodes=node3") != create.end());
    (void)r.driver.step(1001);
    QCOMPARE(r.runner.requests.size(), size_t{6});  // the same window: nothing to do
    r.driver.wantNodes({});
    (void)r.driver.step(1002);
    QCOMPARE(r.runner.requests.at(8).argv,
             (std::vector<std::string>{"scontrol", "delete", "ReservationName=tessera-db-psu"}));
    QCOMPARE(r.driver.status().detail, std::string());
  }

  // A job the engine preempted that still runs in Slurm is requeued held.
  void aPreemptedJobIsRequeuedHeld() {
    ReplayRunner runner;
    runner.answer(squeueWith("RUNNING", "None", 1000, "gres:gpu:h100:1", "node1"));
    runner.answer(readData("sinfo.json"));
    runner.answer("");  // requeuehold
    SlurmClient client(runner);
    SlurmDriver driver(client, {});
    driver.setInstance("db");
    JobIntent held;
    held.job = 7;
    held.run = 1;
    driver.want(held);
    (void)driver.step(100);
    QCOMPARE(programs(runner).at(2), std::string("scontrol requeuehold 41"));
  }

  // Between full polls the light listing is enough for Tessera's jobs moving along the usual
  // path: a placed job's COMPLETED reaches the engine without squeue --json, and the binding
  // known from the last full view is not taken for a difference.
  void aLightPollSeesAJobCompleteWithoutTheJsonListing() {
    const std::string running = squeueWith("RUNNING", "None", 1000, "gres:gpu:h100:1", "node1",
                                           json::array({"gpu:h100:1(IDX:0)"}));
    Rig r;
    r.poll(running);
    r.runner.answer("41|RUNNING|None|1000|node1\n");
    r.runner.answer(readData("sinfo.json"));
    r.runner.answer("41|COMPLETED|None|1000|node1\n");
    r.runner.answer(readData("sinfo.json"));
    JobIntent i = placed({"node1"});
    i.gpus = {{"node1", {0}}};
    r.driver.want(i);
    QVERIFY(r.driver.poll(100).seen.ended.empty());  // the first poll is a full one
    const StepReport same = r.driver.poll(101);
    QVERIFY(same.seen.ended.empty());
    QVERIFY(same.seen.bound.empty());
    const StepReport done = r.driver.poll(102);
    QCOMPARE(done.seen.ended.size(), size_t{1});
    QCOMPARE(done.seen.ended.front().job, JobId{7});
    QVERIFY(done.seen.ended.front().ok);
    QCOMPARE(done.seen.ended.front().reason.english(), std::string("Slurm: COMPLETED"));
    QCOMPARE(programs(r.runner), (std::vector<std::string>{
                                     "squeue --json", "sinfo --json", "squeue --noheader --array",
                                     "sinfo --json", "squeue --noheader --array", "sinfo --json"}));
    QCOMPARE(r.driver.status().lastSync, Seconds{102});
  }

  // What the light listing cannot say is read in full at once: a new job (an offer or a new
  // submission needs its details), an end with an exit code, a requeue. And at least every
  // fullPollSeconds whatever it shows.
  void aLightPollFallsBackToTheFullListing_data() {
    QTest::addColumn<QString>("glance");
    QTest::addColumn<qint64>("at");
    QTest::newRow("a new job") << "41|PENDING|JobHeldUser|0|\n42|PENDING|JobHeldUser|0|\n"
                               << qint64{101};
    QTest::newRow("failed") << "41|FAILED|NonZeroExitCode|0|node1\n" << qint64{101};
    QTest::newRow("gone") << "" << qint64{101};
    QTest::newRow("unchanged but due") << "41|PENDING|JobHeldUser|0|\n" << qint64{110};
  }
  void aLightPollFallsBackToTheFullListing() {
    QFETCH(QString, glance);
    QFETCH(qint64, at);
    const std::string held = squeueWith("PENDING", "JobHeldUser", 0, "gres:gpu:h100:1");
    Rig r;
    r.poll(held);
    const bool due = at >= 110;
    if (!due) r.runner.answer(glance.toStdString());
    r.poll(held);
    JobIntent waiting = placed({});
    waiting.want = JobIntent::Want::Held;
    r.driver.want(waiting);
    (void)r.driver.poll(100);
    (void)r.driver.poll(at);
    std::vector<std::string> want{"squeue --json", "sinfo --json"};
    if (!due) want.push_back("squeue --noheader --array");
    want.insert(want.end(), {"squeue --json", "sinfo --json"});
    QCOMPARE(programs(r.runner), want);
    QCOMPARE(r.driver.status().state, ExecutorState::Ready);
  }

  // Slurm returned node3, the driver said so, and the engine's hold went: that release is the
  // driver's own, not an operator's. Drained again in Slurm before the next step, node3 stays
  // drained (and held again), not resumed.
  void aHoldTheDriverReturnedIsNoOperatorsClearing() {
    auto node3 = [](const std::string& reason) {
      json doc = json::parse(readData("sinfo.json"));
      for (json& n : doc["nodes"])
        if (n["name"] == "node3") {
          n["state_flags"] = reason.empty() ? json::array() : json::array({"DRAIN"});
          n["reason"] = reason;
        }
      return doc.dump();
    };
    Rig r;
    const std::string none = squeueOf(json::array());
    for (const std::string& reason :
         {std::string("psu swap"), std::string(), std::string("bad fan")}) {
      r.runner.answer(none);
      r.runner.answer(node3(reason));
    }
    QVERIFY(r.driver.step(100).seen.nodes.front().out);
    const StepReport back = r.driver.step(101);
    QCOMPARE(back.seen.nodes.size(), size_t{1});
    QVERIFY(!back.seen.nodes.front().out);
    NodeIntents released;
    released.released = {"node3"};  // the engine's hold went, as the driver asked
    r.driver.wantNodes(released);
    const StepReport again = r.driver.step(102);
    QCOMPARE(again.seen.nodes.size(), size_t{1});
    QCOMPARE(again.seen.nodes.front().reason.english(), std::string("Slurm: bad fan"));
    QCOMPARE(r.runner.requests.size(), size_t{6});  // no scontrol: not resumed
  }

  // Idle (no job of the engine's, none live in Slurm) the full listing - all of Slurm's finished
  // jobs - is read only when the light one shows news (here: a user's new job), not every
  // fullPollSeconds.
  void anIdleDriverReadsTheFullListingOnlyForNews() {
    const std::string done = squeueWith("COMPLETED", "None", 1000, "gres:gpu:h100:1", "node1");
    Rig r;
    r.poll(done);
    for (int i = 0; i < 2; ++i) {
      r.runner.answer("41|COMPLETED|None|1000|node1\n");
      r.runner.answer(readData("sinfo.json"));
    }
    r.runner.answer("41|COMPLETED|None|1000|node1\n42|PENDING|JobHeldUser|0|\n");
    r.poll(done);
    (void)r.driver.poll(100);
    (void)r.driver.poll(111);  // past fullPollSeconds (10), idle: light
    (void)r.driver.poll(500);
    (void)r.driver.poll(501);  // job 42 is news
    QCOMPARE(
        programs(r.runner),
        (std::vector<std::string>{"squeue --json", "sinfo --json", "squeue --noheader --array",
                                  "sinfo --json", "squeue --noheader --array", "sinfo --json",
                                  "squeue --noheader --array", "squeue --json", "sinfo --json"}));
  }

  // Where the two listings word one state differently (a job requeued held) the light one is no
  // news: no full poll for it, even for a user's job (whose changes need the full listing).
  void aRequeuedHeldJobIsTheSameInBothListings() {
    json users = json::parse(squeueWith("PENDING", "JobHeldUser", 0, "gres:gpu:h100:1"));
    users["jobs"][0]["comment"] = "tessera-refused: too big";
    Rig r;
    r.poll(users.dump());
    r.runner.answer("41|PENDING|job requeued in held state|0|\n");
    r.runner.answer(readData("sinfo.json"));
    (void)r.driver.poll(100);
    (void)r.driver.poll(101);
    QCOMPARE(programs(r.runner),
             (std::vector<std::string>{"squeue --json", "sinfo --json", "squeue --noheader --array",
                                       "sinfo --json"}));
  }

  // What a MIG repartition hands the site's hook, for the fixture's node3 (GPUs 0-1 whole, 2 as
  // two 3g.40gb, 3 as two 1g.10gb): the Gres= the fixture's slurm.conf declares for it, and a
  // mig-parted config with MIG on for GPUs 2 and 3 only. A node without MIG needs nothing.
  void theMigFilesDescribeTheEnginesLayout() {
    auto engine = fixtureEngine();
    const GresTypeOf typeOf = [](const std::string& model) {
      return model.substr(0, model.find('-')) == "A100" ? std::string("a100") : "h100";
    };
    const Cluster& c = engine->cluster();
    const MigNodeConfig n3 = migNodeConfig(engine->state(), c.findNode("node3")->id, typeOf);
    QCOMPARE(n3.signature, std::string("2: 3g.40gb@0,3g.40gb@4\n3: 1g.10gb@0,1g.10gb@1\n"));
    QCOMPARE(n3.slurmConf,
             std::string("NodeName=node3 Gres=gpu:a100:2,gpu:a100_1g.10gb:2,gpu:a100_3g.40gb:2\n"));
    QCOMPARE(n3.migParted, std::string("version: v1\n"
                                       "mig-configs:\n"
                                       "  tessera-node3:\n"
                                       "    - devices: [0]\n      mig-enabled: false\n"
                                       "    - devices: [1]\n      mig-enabled: false\n"
                                       "    - devices: [2]\n      mig-enabled: true\n"
                                       "      mig-devices:\n        \"3g.40gb\": 2\n"
                                       "    - devices: [3]\n      mig-enabled: true\n"
                                       "      mig-devices:\n        \"1g.10gb\": 2\n"));
    QVERIFY(n3.gresConf.find("NodeName=node3 AutoDetect=nvml") != std::string::npos);
    QVERIFY(migNodeConfig(engine->state(), c.findNode("node1")->id, typeOf).signature.empty());
  }

  // An operator's repartition under Slurm: the node is drained (and held in the engine) until
  // its jobs end, then the site's hook gets the files and the node is resumed; the layout Slurm
  // started with is not repartitioned again.
  void aMigRepartitionDrainsRunsTheHookAndResumes() {
    MigRig r({"/usr/local/sbin/apply-mig", "--quick"});
    r.poll(readData("sinfo.json"));
    r.poll(readData("sinfo.json"));
    r.runner.answer("");  // drain
    r.poll(sinfoMigDrained(false));
    r.poll(sinfoMigDrained(true));
    r.runner.answer("");  // the hook
    r.runner.answer("");  // resume
    r.driver.wantNodes(migNodes("3g.40gb@0,3g.40gb@4"));
    QVERIFY(node2(r.driver.step(100)).empty());  // what Slurm has: nothing to do
    r.driver.wantNodes(migNodes("7g.80gb@0"));
    const StepReport draining = r.driver.step(101);
    QCOMPARE(programs(r.runner).at(4), std::string("scontrol update NodeName=node2"));
    QCOMPARE(r.runner.requests.at(4).argv.at(4), std::string("Reason=tessera: MIG repartition"));
    QCOMPARE(node2(draining).size(), size_t{1});
    QVERIFY(node2(draining).front().out);
    QVERIFY(node2(r.driver.step(102)).empty());  // its jobs still run: waiting
    QCOMPARE(r.runner.requests.size(), size_t{7});
    const StepReport applied = r.driver.step(103);
    const std::string nodeDir = r.dir.filePath("node2").toStdString();
    QCOMPARE(r.runner.requests.at(9).argv,
             (std::vector<std::string>{"/usr/local/sbin/apply-mig", "--quick", "node2", nodeDir}));
    QCOMPARE(programs(r.runner).at(10), std::string("scontrol update NodeName=node2"));
    QCOMPARE(r.runner.requests.at(10).argv.at(3), std::string("State=RESUME"));
    QCOMPARE(node2(applied).size(), size_t{1});
    QVERIFY(!node2(applied).front().out);
    std::ifstream parted(nodeDir + "/mig-parted.yaml");
    std::string text((std::istreambuf_iterator<char>(parted)), std::istreambuf_iterator<char>());
    QCOMPARE(text, std::string("version: v1\n# 7g.80gb@0\n"));
    QVERIFY(std::filesystem::exists(nodeDir + "/slurm.conf"));
    QVERIFY(std::filesystem::exists(nodeDir + "/gres.conf"));
    QVERIFY2(r.driver.status().detail.empty(), r.driver.status().detail.c_str());
  }

  // A hook that fails leaves the node drained and held with its message; cleared by an operator,
  // it runs again. Without a hook the files are written and the operator's clearing means "done".
  void aFailedMigHookKeepsTheNodeHeldUntilCleared() {
    MigRig r({"apply-mig"});
    for (int i = 0; i < 3; ++i) {
      r.poll(i == 0 ? readData("sinfo.json") : sinfoMigDrained(true));
      if (i == 1) r.runner.answer("", 1, "nvidia-mig-parted: GPU 0 is busy");
      if (i == 2) {
        r.runner.answer("");  // the hook again
        r.runner.answer("");  // resume
      }
    }
    r.driver.wantNodes(migNodes("3g.40gb@0,3g.40gb@4"));
    (void)r.driver.step(100);
    r.driver.wantNodes(migNodes("7g.80gb@0"));
    const auto failed = node2(r.driver.step(101));
    QCOMPARE(failed.size(), size_t{1});
    QVERIFY(failed.front().out);
    const std::string why = failed.front().reason.english();
    QVERIFY2(why.find("GPU 0 is busy") != std::string::npos, why.c_str());
    QCOMPARE(r.runner.requests.size(), size_t{5});  // no resume
    NodeIntents cleared = migNodes("7g.80gb@0");
    cleared.released = {"node2"};
    r.driver.wantNodes(cleared);
    const auto retried = node2(r.driver.step(102));
    QCOMPARE(r.runner.requests.at(7).argv.front(), std::string("apply-mig"));
    QCOMPARE(retried.size(), size_t{1});
    QVERIFY(!retried.front().out);

    MigRig manual({});
    for (int i = 0; i < 4; ++i)
      manual.poll(i == 0 ? readData("sinfo.json") : sinfoMigDrained(true));
    manual.runner.answer("");  // resume
    manual.driver.wantNodes(migNodes("3g.40gb@0,3g.40gb@4"));
    (void)manual.driver.step(100);
    manual.driver.wantNodes(migNodes("7g.80gb@0"));
    const auto held = node2(manual.driver.step(101));
    QVERIFY(held.front().reason.english().find("no slurm.mig_hook") != std::string::npos);
    manual.driver.wantNodes(cleared);
    (void)manual.driver.step(102);  // applied by hand
    const auto resumed = node2(manual.driver.step(103));
    QCOMPARE(programs(manual.runner).back(), std::string("scontrol update NodeName=node2"));
    QCOMPARE(manual.runner.requests.back().argv.at(3), std::string("State=RESUME"));
    QVERIFY(!resumed.front().out);
  }

  // A light listing that does not parse (another Slurm's format) is not trusted again: full polls
  // from then on. One that fails to run is Slurm not answering: unavailable, no second wait.
  void anUnreadableLightListingMeansFullPolls() {
    const std::string held = squeueWith("PENDING", "JobHeldUser", 0, "gres:gpu:h100:1");
    Rig r;
    r.poll(held);
    r.runner.answer("41 PENDING JobHeldUser 0\n");
    r.poll(held);
    r.poll(held);
    (void)r.driver.poll(100);
    (void)r.driver.poll(101);
    (void)r.driver.poll(102);
    QCOMPARE(programs(r.runner),
             (std::vector<std::string>{"squeue --json", "sinfo --json", "squeue --noheader --array",
                                       "squeue --json", "sinfo --json", "squeue --json",
                                       "sinfo --json"}));

    Rig down;
    down.poll(held);
    down.runner.answer("", 1, "squeue: error: Unable to contact slurm controller");
    (void)down.driver.poll(100);
    (void)down.driver.poll(101);
    QCOMPARE(down.runner.requests.size(), size_t{3});
    QCOMPARE(down.driver.status().state, ExecutorState::Unavailable);
    QVERIFY(down.driver.status().detail.find("Unable to contact") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TstSlurmDriver)
#include "tst_slurm_driver.moc"
