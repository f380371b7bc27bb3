// Shared GPUs through the real daemons: node5 of the slurm_cluster fixture started with
// TESSERA_SLURM_SHARING=shard (two H100 time-sliced by gres/shard) or =mps (two H100 running MPS,
// gres/mps). Each CTest entry runs this against one of the two clusters (Slurm 22.05 cannot have
// both kinds in one; slurm_cluster.sh): fraction jobs run side by side on shards, an MPS share
// runs with its gres/mps count and the engine's MPS limits in its environment, and the engine
// follows the GPU Slurm gives either kind of share.
#include <QtTest>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "../service/backend_test_util.h"
#include "slurm_live_util.h"

using namespace tessera;
using namespace tessera::test;
using Clock = std::chrono::steady_clock;

namespace {

// Polls `done` until it holds or `seconds` pass.
bool eventually(const std::function<bool()>& done, double seconds = 10) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return done();
}

std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

class TstSlurmSharing : public QObject {
  Q_OBJECT

  slurm::ProcessRunner runner_{2};
  std::unique_ptr<slurm::SlurmClient> slurm_;
  std::filesystem::path dir_;
  std::unique_ptr<Backend> backend_;

  void open(const std::string& clusterFile) {
    SlurmExecutorConfig ec;
    ec.defaultTeam = "vision";  // users' own sbatch jobs are offered to it
    auto backend = openSlurmBackend(clusterFile, dir_, ec);
    QVERIFY2(backend, backend ? "" : backend.error().str().c_str());
    backend_ = std::move(*backend);
  }

  // A one-task job of the H100 model printing its environment (into jobs/share-<slurm id>.out).
  Job shareJob(GpuRequest request) {
    Job j;
    j.name = "share";
    j.team = "vision";
    j.priorityClass = "experiment";
    j.perTask = request;
    j.model.models = {"H100-SXM5-80GB"};
    j.launch.command = "env; sleep 30";
    j.launch.timeLimitMinutes = 2;
    j.launch.workDir = fixtureEnv("TESSERA_SLURM_CLUSTER") + "/jobs";
    j.launch.output = j.launch.workDir + "/share-%j.out";
    return j;
  }

  JobId submit(const Job& j) {
    const auto ids = await<std::vector<JobId>>(
        [&](auto r) { backend_->submit({j}, Caller{"alice"}, std::nullopt, r); });
    return ok(ids).front();
  }

  // The engine's GPUs (local indices) for the job's one task.
  std::vector<int> engineGpus(JobId id) {
    const JobInfo i = ok(await<JobInfo>([&](auto r) { backend_->job(id, r); }));
    return i.placement.empty() ? std::vector<int>{} : i.placement.front().gpus;
  }

  // Slurm puts a share's shard or mps on the lowest GPU with room, whatever the engine chose:
  // pinned by the operator to node5's GPU 1 in Tessera, the share runs on GPU 0 in Slurm, and
  // the engine's map follows, so the heatmap and telemetry show it where it runs.
  void theEngineFollowsSlurmsGpu(const GpuRequest& request, const std::string& gres) {
    Job j = shareJob(request);
    j.pinGpus = {"node5/1"};
    const JobId id = submit(j);
    const auto s = runningInSlurm(*slurm_, id);
    QVERIFY2(s, "the pinned share never ran in Slurm");
    QVERIFY(!s->gresDetail.front().gres.empty());
    const slurm::GresUse& bound = s->gresDetail.front().gres.front();
    QCOMPARE(bound.gres.name, gres);
    QVERIFY2(bound.indices == std::vector<int>{0},
             "Slurm did not choose GPU 0 itself: the premise of this test is gone");
    QVERIFY(eventually([&] { return engineGpus(id) == std::vector<int>{0}; }));
    QVERIFY(slurm_->cancel(s->id));
  }

  // The job's printed environment once it holds `line` (the output appears just after start).
  std::string printedEnvironment(const slurm::SlurmJob& s, const std::string& line) {
    const std::string path =
        fixtureEnv("TESSERA_SLURM_CLUSTER") + "/jobs/share-" + std::to_string(s.id) + ".out";
    const auto until = Clock::now() + std::chrono::seconds(10);
    std::string text;
    while (Clock::now() < until) {
      text = readText(path);
      if (text.find(line) != std::string::npos) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return text;
  }

  // Two quarter-GPU fractions: each asks for one shard and both run at once on node5, where
  // Slurm's whole-GPU jobs could not share.
  void fractionsRunSideBySideOnShards() {
    open("shard-cluster.yaml");
    if (QTest::currentTestFailed()) return;
    GpuRequest quarter;
    quarter.kind = GpuRequest::Kind::Fraction;
    quarter.milli = 250;
    const JobId first = submit(shareJob(quarter));
    const JobId second = submit(shareJob(quarter));
    const auto a = runningInSlurm(*slurm_, first);
    const auto b = runningInSlurm(*slurm_, second);
    QVERIFY2(a && b, "the fractions did not both run in Slurm");
    for (const auto& s : {*a, *b}) {
      QCOMPARE(s.nodes, std::vector<std::string>{"node5"});
      QCOMPARE(s.tresPerNode, std::string("gres:shard:h100:1"));
      QCOMPARE(s.gresDetail.front().gres.front().gres.name, std::string("shard"));
      QCOMPARE(s.gresDetail.front().gres.front().gres.count, 1);
    }
    QVERIFY(slurm_->cancel(a->id));
    QVERIFY(slurm_->cancel(b->id));
    theEngineFollowsSlurmsGpu(quarter, "shard");
    if (QTest::currentTestFailed()) return;
    aUsersShardJobIsRefused();
  }

  // A user's own sbatch for a shard (held by the gate) is not taken in: it has no fraction the
  // engine could place it by. It stays held, its comment saying why.
  void aUsersShardJobIsRefused() {
    slurm::CommandRequest r;
    r.argv = {"sbatch",
              "--parsable",
              "-t",
              "1",
              "--gres=shard:1",
              "--chdir",
              fixtureEnv("TESSERA_SLURM_CLUSTER") + "/jobs",
              "--wrap",
              "true"};
    r.environment["SLURM_CONF"] = fixtureEnv("SLURM_CONF");
    const auto done = runner_.run(r);
    QVERIFY(done && done->ok());
    const int64_t id = std::stoll(done->out);
    std::string comment;
    const auto until = Clock::now() + std::chrono::seconds(20);
    while (Clock::now() < until && comment.empty()) {
      if (auto all = slurm_->jobs())
        for (const auto& s : all->jobs)
          if (s.id == id) comment = s.comment;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    QVERIFY2(comment.starts_with("tessera-refused: asks for gres shard:1"), comment.c_str());
    QVERIFY(slurm_->cancel(id));
  }

  // A 25 % MPS share with 8 GiB pinned: mps:25 of node5's 100 per GPU, and the job's environment
  // carries the limits the engine computed (Slurm sets the percentage from the count too).
  void anMpsShareRunsWithItsLimits() {
    open("mps-cluster.yaml");
    if (QTest::currentTestFailed()) return;
    GpuRequest share;
    share.kind = GpuRequest::Kind::Mps;
    share.mpsThreads = 25;
    share.vramMiB = 8192;
    const JobId id = submit(shareJob(share));
    const auto s = runningInSlurm(*slurm_, id);
    QVERIFY2(s, "the MPS share never ran in Slurm");
    QCOMPARE(s->nodes, std::vector<std::string>{"node5"});
    QCOMPARE(s->tresPerNode, std::string("gres:mps:h100:25"));
    QCOMPARE(s->gresDetail.front().gres.front().gres.name, std::string("mps"));
    QCOMPARE(s->gresDetail.front().gres.front().gres.count, 25);
    const std::string env = printedEnvironment(*s, "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=");
    QVERIFY2(env.find("\nCUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25\n") != std::string::npos,
             env.c_str());
    QVERIFY2(env.find("\nCUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=8192M\n") != std::string::npos,
             env.c_str());
    QVERIFY(slurm_->cancel(s->id));
    theEngineFollowsSlurmsGpu(share, "mps");
    if (QTest::currentTestFailed()) return;
    threeClientsAllRunUnderOneSharing();
    if (QTest::currentTestFailed()) return;
    aSpecSayingAllSpreadsAndIsBounced();
  }

  // An MPS share of `threads` % with 4 GiB pinned.
  Job mpsJob(int threads) {
    GpuRequest share;
    share.kind = GpuRequest::Kind::Mps;
    share.mpsThreads = threads;
    share.vramMiB = 4096;
    return shareJob(share);
  }

  JobInfo info(JobId id) {
    return ok(await<JobInfo>([&](auto r) { backend_->job(id, r); }));
  }

  // The Slurm job of the engine's job `id`, as squeue shows it now.
  std::optional<slurm::SlurmJob> slurmJob(JobId id) {
    const std::string suffix = "." + std::to_string(id);
    if (auto all = slurm_->jobs())
      for (const auto& s : all->jobs)
        if (s.tesseraId && s.tesseraId->ends_with(suffix) && !slurm::isFinished(s.state)) return s;
    return std::nullopt;
  }

  void cancelInSlurm(const std::vector<JobId>& ids) {
    for (JobId id : ids)
      if (auto s = slurmJob(id)) (void)slurm_->cancel(s->id);
  }

  // The fixture keeps gres/mps's default, one_sharing, and the spec says nothing: the engine
  // follows Slurm's rule. Clients of 60 % and 30 % share GPU 0; the 25 % one does not fit there
  // and may not go to the idle GPU 1, so it waits in the engine - held in Slurm, never released
  // to wait there - with the rule in its reason. Once the 60 % client ends it runs, on GPU 0.
  void threeClientsAllRunUnderOneSharing() {
    const JobId first = submit(mpsJob(60));
    const auto a = runningInSlurm(*slurm_, first);
    const JobId second = submit(mpsJob(30));
    const auto b = runningInSlurm(*slurm_, second);
    QVERIFY2(a && b, "the 60 % and 30 % clients did not both run in Slurm");
    QCOMPARE(a->gresDetail.front().gres.front().indices, std::vector<int>{0});
    QCOMPARE(b->gresDetail.front().gres.front().indices, std::vector<int>{0});
    const JobId third = submit(mpsJob(25));
    const std::string rule = "node node5 serves MPS on GPU 0 only";
    QVERIFY2(eventually(
                 [&] { return info(third).row.reason.english().find(rule) != std::string::npos; }),
             info(third).row.reason.english().c_str());
    QCOMPARE(info(third).row.state, JobState::Pending);
    QVERIFY(eventually([&] { return slurmJob(third).has_value(); }));
    QVERIFY2(slurmJob(third)->held, "the waiting client was released in Slurm");
    QVERIFY(slurm_->cancel(a->id));
    const auto c = runningInSlurm(*slurm_, third);
    QVERIFY2(c, "the 25 % client never ran in Slurm once GPU 0 had room");
    QCOMPARE(c->gresDetail.front().gres.front().indices, std::vector<int>{0});
    QCOMPARE(engineGpus(third), std::vector<int>{0});
    cancelInSlurm({second, third});
  }

  // A spec saying node_sharing: all where Slurm keeps one_sharing: the engine spreads the 25 %
  // client onto the idle GPU 1, Slurm leaves it pending (Resources), and the driver's safety net
  // bounces it back to the queue after the settle time - then, placed there again and left
  // pending again, holds it in the queue rather than place it there forever.
  void aSpecSayingAllSpreadsAndIsBounced() {
    backend_.reset();
    SlurmExecutorConfig ec;
    ec.defaultTeam = "vision";
    ec.driver.releaseSettle = 3;
    std::filesystem::create_directories(dir_ / "all");
    auto backend = openSlurmBackend("mps-all-cluster.yaml", dir_ / "all", ec);
    QVERIFY2(backend, backend ? "" : backend.error().str().c_str());
    backend_ = std::move(*backend);
    const JobId first = submit(mpsJob(60));
    QVERIFY(runningInSlurm(*slurm_, first));
    const JobId second = submit(mpsJob(30));
    QVERIFY(runningInSlurm(*slurm_, second));
    const JobId third = submit(mpsJob(25));
    QVERIFY2(eventually([&] { return engineGpus(third) == std::vector<int>{1}; }),
             "the engine did not spread the 25 % client onto GPU 1");
    QVERIFY(eventually([&] {
      const auto s = slurmJob(third);
      return s && !s->held && s->stateReason == "Resources";
    }));
    QVERIFY2(eventually([&] { return info(third).row.job.held; }, 30),
             "the client Slurm leaves pending was not bounced and held");
    const JobInfo held = info(third);
    QCOMPARE(held.row.state, JobState::Pending);
    QCOMPARE(held.row.preemptions, 2);  // bounced once, placed there again, bounced and held
    QVERIFY(slurmJob(third)->held);
    cancelInSlurm({first, second, third});
  }

 private slots:
  void initTestCase() {
    slurm_ = fixtureClient(runner_);
    dir_ = scratchDir("slurm-sharing");
  }

  void cleanupTestCase() {
    backend_.reset();
    std::filesystem::remove_all(dir_);
  }

  // The kind of sharing this run's cluster has (its CTest entry says which).
  void aShareRunsThroughSlurm() {
    const std::string kind = fixtureEnv("TESSERA_SLURM_SHARING");
    if (kind == "shard")
      fractionsRunSideBySideOnShards();
    else if (kind == "mps")
      anMpsShareRunsWithItsLimits();
    else
      QFAIL(("TESSERA_SLURM_SHARING is '" + kind + "', not shard or mps").c_str());
  }
};

QTEST_GUILESS_MAIN(TstSlurmSharing)
#include "tst_slurm_sharing.moc"
