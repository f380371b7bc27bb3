// The exact-GPU site mode against real daemons: node4 of the slurm_cluster fixture knows its two
// H100 as per-device GRES types (h100_g0, h100_g1). A job the engine places on GPU 1 runs in
// Slurm on device 1 - where Slurm left to itself would take the lowest free one, device 0.
#include <QtTest>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <thread>

#include "../service/backend_test_util.h"
#include "clusterspec/cluster_spec.h"
#include "executor/slurm_executor.h"
#include "service/backend.h"
#include "slurm/process_runner.h"
#include "slurm/slurm_client.h"
#include "slurm_test_env.h"

using namespace tessera;
using namespace tessera::test;
using Clock = std::chrono::steady_clock;

class TstSlurmExact : public QObject {
  Q_OBJECT

  slurm::ProcessRunner runner_{2};
  std::unique_ptr<slurm::SlurmClient> slurm_;
  std::filesystem::path dir_;

  // The Slurm job whose comment ends in ".<id>" once it runs, or nullopt after `seconds`.
  std::optional<slurm::SlurmJob> runningInSlurm(JobId id, double seconds = 30) {
    const std::string suffix = "." + std::to_string(id);
    const auto until = Clock::now() + std::chrono::duration<double>(seconds);
    while (Clock::now() < until) {
      if (auto all = slurm_->jobs())
        for (const auto& s : all->jobs)
          if (s.tesseraId && s.tesseraId->ends_with(suffix) &&
              s.state == slurm::JobState::Running && !s.gresDetail.empty())
            return s;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return std::nullopt;
  }

 private slots:
  void initTestCase() {
    slurm::SlurmClientOptions o;
    o.environment["SLURM_CONF"] = fixtureEnv("SLURM_CONF");
    slurm_ = std::make_unique<slurm::SlurmClient>(runner_, o);
    dir_ = std::filesystem::temp_directory_path() /
           ("tessera-slurm-exact-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }

  void cleanupTestCase() { std::filesystem::remove_all(dir_); }

  void aPlacedJobRunsOnTheEnginesDevice() {
    auto cluster = loadClusterSpecFile(std::string(TESSERA_TEST_DATA) + "/exact-cluster.yaml");
    QVERIFY2(cluster, cluster ? "" : cluster.error().str().c_str());
    BackendConfig c;
    c.database = (dir_ / "tesserad.db").string();
    c.mode = BackendMode::Live;
    c.cluster = *cluster;
    c.tenants.teams = {Team{"vision", "", 1, {}}};
    c.cycleSeconds = 0.2;
    SlurmExecutorConfig ec;
    ec.client.environment["SLURM_CONF"] = fixtureEnv("SLURM_CONF");
    ec.pollSeconds = 0.3;
    ec.exactGpus = true;
    c.executor = [ec] {
      return std::make_unique<SlurmExecutor>(std::make_unique<slurm::ProcessRunner>(2), ec);
    };
    auto backend = Backend::open(std::move(c));
    QVERIFY2(backend, backend ? "" : backend.error().str().c_str());

    Job j;
    j.name = "exact";
    j.team = "vision";
    j.priorityClass = "experiment";
    j.perTask.kind = GpuRequest::Kind::Whole;
    j.perTask.gpus = 1;
    j.model.models = {"H100-SXM5-80GB"};
    j.pinGpus = {"node4/1"};
    j.launch.command = "sleep 30";
    j.launch.timeLimitMinutes = 2;
    j.launch.workDir = fixtureEnv("TESSERA_SLURM_CLUSTER") + "/jobs";
    j.launch.output = "/dev/null";
    const auto ids = await<std::vector<JobId>>(
        [&](auto r) { (*backend)->submit({j}, Caller{"alice"}, std::nullopt, r); });
    const JobId id = ok(ids).front();

    const auto s = runningInSlurm(id);
    QVERIFY2(s, "the job never ran in Slurm");
    QCOMPARE(s->nodes, std::vector<std::string>{"node4"});
    QCOMPARE(s->tresPerNode, std::string("gres:gpu:h100_g1:1"));
    QCOMPARE(s->gresDetail.size(), size_t{1});
    QCOMPARE(s->gresDetail.front().gres.front().indices, std::vector<int>{1});
    const auto info = ok(await<JobInfo>([&](auto r) { (*backend)->job(id, r); }));
    QCOMPARE(info.placement.size(), size_t{1});
    QCOMPARE(info.placement.front().gpus, std::vector<int>{1});
    QVERIFY(slurm_->cancel(s->id));
  }
};

QTEST_GUILESS_MAIN(TstSlurmExact)
#include "tst_slurm_exact.moc"
