// The exact-GPU site mode against real daemons: node4 of the slurm_cluster fixture knows its two
// H100 as per-device GRES types (h100_g0, h100_g1). A job the engine places on GPU 1 runs in
// Slurm on device 1 - where Slurm left to itself would take the lowest free one, device 0.
#include <QtTest>

#include <cstdlib>
#include <filesystem>

#include "../service/backend_test_util.h"
#include "slurm_live_util.h"

using namespace tessera;
using namespace tessera::test;

class TstSlurmExact : public QObject {
  Q_OBJECT

  slurm::ProcessRunner runner_{2};
  std::unique_ptr<slurm::SlurmClient> slurm_;
  std::filesystem::path dir_;

 private slots:
  void initTestCase() {
    slurm_ = fixtureClient(runner_);
    dir_ = scratchDir("slurm-exact");
  }

  void cleanupTestCase() { std::filesystem::remove_all(dir_); }

  void aPlacedJobRunsOnTheEnginesDevice() {
    SlurmExecutorConfig ec;
    ec.exactGpus = true;
    auto backend = openSlurmBackend("exact-cluster.yaml", dir_, ec);
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

    const auto s = runningInSlurm(*slurm_, id);
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
