// SlurmClient against real daemons: the private cluster of the slurm_cluster CTest fixture
// (slurm_cluster.sh: node1, node2 with 4 x h100, node3 with 2 x a100 + MIG types, the gate).
// Every test cancels the jobs it submitted. The time-limit job starts in initTestCase and is
// checked last: Slurm's shortest limit is one minute, enforced every 30 s.
#include <QtTest>

#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <functional>

#include "slurm/slurm_client.h"

using namespace tessera;
using namespace tessera::slurm;
using namespace std::chrono_literals;

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? std::string() : std::string(v);
}

std::string describe(const SlurmJob& j) {
  std::string nodes;
  for (const auto& n : j.nodes) nodes += n + " ";
  return "job " + std::to_string(j.id) + " " + std::string(slurmWord(j.state)) + " (" +
         j.stateReason + ") on [" + nodes + "] prio " + std::to_string(j.priority);
}

}  // namespace

class TestSlurmClient : public QObject {
  Q_OBJECT

 public:
  TestSlurmClient() : client_(runner_) {}

 private:
  ProcessRunner runner_{4};
  SlurmClient client_;
  std::string jobDir_;
  std::vector<int64_t> submitted_;  // this test function's jobs, cancelled in cleanup()
  int64_t timeoutJob_ = 0;
  int counter_ = 0;

  std::string uniqueTag(const std::string& what) {
    return what + "-" + std::to_string(::getpid()) + "-" + std::to_string(++counter_);
  }

  SubmitRequest request(const std::string& tag, const std::string& gres, const std::string& cmd,
                        int nodes = 1) {
    SubmitRequest r;
    r.tesseraId = tag;
    r.name = tag;
    r.timeLimitMinutes = 5;
    r.nodes = nodes;
    r.gres = gres;
    r.workDir = jobDir_;
    r.wrap = cmd;
    return r;
  }

  int64_t submit(const SubmitRequest& r) {
    auto id = client_.submitHeld(r);
    if (!id) qFatal("sbatch failed: %s", id.error().str().c_str());
    submitted_.push_back(*id);
    return *id;
  }

  // Polls squeue --json until `done` holds for the job, or fails the test at the deadline.
  SlurmJob waitFor(int64_t id, const std::function<bool(const SlurmJob&)>& done,
                   std::chrono::seconds limit = 30s) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::string last = "never listed";
    while (std::chrono::steady_clock::now() < deadline) {
      auto doc = client_.jobs();
      if (!doc) qFatal("squeue --json: %s", doc.error().str().c_str());
      for (const auto& j : doc->jobs) {
        if (j.id != id) continue;
        if (done(j)) return j;
        last = describe(j);
      }
      QTest::qWait(100);
    }
    qFatal("timed out waiting; last seen: %s", last.c_str());
  }

  SlurmJob waitState(int64_t id, JobState state, std::chrono::seconds limit = 30s) {
    return waitFor(
        id, [state](const SlurmJob& j) { return j.state == state; }, limit);
  }

  SlurmNode node(const std::string& name) {
    auto doc = client_.nodes();
    if (!doc) qFatal("sinfo --json: %s", doc.error().str().c_str());
    for (const auto& n : doc->nodes)
      if (n.name == name) return n;
    qFatal("no node %s", name.c_str());
  }

  CommandResult runRaw(std::vector<std::string> argv) {
    CommandRequest req;
    req.argv = std::move(argv);
    req.timeout = 20s;
    auto r = runner_.run(req);
    if (!r) qFatal("%s", r.error().str().c_str());
    return *r;
  }

  void placeAndRelease(int64_t id, const std::vector<std::string>& nodes) {
    QVERIFY(client_.pin(id, nodes).ok());
    QVERIFY(client_.release(id).ok());
  }

 private slots:
  void initTestCase() {
    // Never a skip: without the fixture this test fails (a skipped test must not pass).
    QVERIFY2(!env("SLURM_CONF").empty() && !env("TESSERA_SLURM_CLUSTER").empty(),
             "SLURM_CONF/TESSERA_SLURM_CLUSTER unset: run through ctest (slurm_cluster fixture)");
    jobDir_ = env("TESSERA_SLURM_CLUSTER") + "/jobs";
    std::filesystem::create_directories(jobDir_);
    auto r = request(uniqueTag("timeout"), "gpu:a100:1", "sleep 600");
    r.timeLimitMinutes = 1;
    auto id = client_.submitHeld(r);
    QVERIFY2(id.ok(), id.ok() ? "" : id.error().str().c_str());
    timeoutJob_ = *id;
    placeAndRelease(timeoutJob_, {"node3"});
  }

  void cleanup() {
    for (int64_t id : submitted_) (void)client_.cancel(id);  // finished jobs: nothing to cancel
    submitted_.clear();
  }

  void cleanupTestCase() {
    if (timeoutJob_ != 0) (void)client_.cancel(timeoutJob_);
  }

  void readsTheCluster() {
    QVERIFY(client_.checkPermissions().ok());  // root
    auto config = client_.config();
    QVERIFY(config.ok());
    QCOMPARE(userNameOf(config->get("SlurmUser")), std::string("root"));
    auto topo = client_.topology();
    QVERIFY2(topo.ok(), topo.ok() ? "" : topo.error().str().c_str());
    QCOMPARE(topo->size(), size_t{3});
    const auto n3 = node("node3");
    QCOMPARE(n3.gres.size(), size_t{3});
    QCOMPARE(n3.gres[1], (GresCount{"gpu", "a100_3g.40gb", 2}));
    QCOMPARE(node("node1").gres, (std::vector<GresCount>{{"gpu", "h100", 4}}));
  }

  void submitHeldIsHeldAndFoundByTag() {
    const auto tag = uniqueTag("held");
    const int64_t id = submit(request(tag, "gpu:h100:1", "true"));
    auto found = client_.findByTag(tag);
    QVERIFY(found.ok());
    QCOMPARE(found->size(), size_t{1});
    const auto& job = found->front();
    QCOMPARE(job.id, id);
    QCOMPARE(job.state, JobState::Pending);
    QVERIFY2(job.held, describe(job).c_str());
    QCOMPARE(job.stateReason, std::string("JobHeldUser"));
    QCOMPARE(job.comment, "tessera:" + tag);
    QCOMPARE(job.timeLimitMinutes, int64_t{5});
    QVERIFY(client_.findByTag(tag + "-other").value().empty());
  }

  void setPriorityIsRefusedWhileHeld() {
    const int64_t id = submit(request(uniqueTag("prio"), "", "true"));
    auto st = client_.setPriority(id, 1000);
    QVERIFY(!st.ok());
    QVERIFY2(st.error().message.find("held") != std::string::npos, st.error().message.c_str());
  }

  void pinAndReleaseRunsOnTheChosenNode() {
    const int64_t id = submit(request(uniqueTag("pin"), "gpu:h100:2", "sleep 300"));
    placeAndRelease(id, {"node2"});
    const auto job = waitState(id, JobState::Running);
    QCOMPARE(job.nodes, std::vector<std::string>{"node2"});
    QCOMPARE(job.requiredNodes, std::vector<std::string>{"node2"});
    QCOMPARE(job.gresDetail.size(), size_t{1});
    QCOMPARE(job.gresDetail[0].node, std::string("node2"));
    QCOMPARE(job.gresDetail[0].gres.at(0).indices.size(), size_t{2});
  }

  void gangRunsOnBothNodes() {
    const int64_t id = submit(request(uniqueTag("gang"), "gpu:h100:1", "srun sleep 300", 2));
    placeAndRelease(id, {"node1", "node2"});
    const auto job = waitState(id, JobState::Running);
    QCOMPARE(job.nodes, (std::vector<std::string>{"node1", "node2"}));
    QCOMPARE(job.gresDetail.size(), size_t{2});
  }

  void exitThreeIsFailedWithCodeThree() {
    const int64_t id = submit(request(uniqueTag("exit3"), "", "exit 3"));
    placeAndRelease(id, {"node1"});
    const auto job = waitState(id, JobState::Failed);
    QCOMPARE(job.exit, (ExitStatus{3, 0}));
    QCOMPARE(job.stateReason, std::string("NonZeroExitCode"));
  }

  void cancelEndsAJob() {
    const int64_t id = submit(request(uniqueTag("cancel"), "gpu:h100:1", "sleep 300"));
    placeAndRelease(id, {"node1"});
    waitState(id, JobState::Running);
    QVERIFY(client_.cancel(id).ok());
    waitState(id, JobState::Cancelled);
    QVERIFY(!client_.cancel(999999).ok());  // no such job: Slurm's message in the error
  }

  void checkpointSignalReachesTheJob() {
    const std::string mark = jobDir_ + "/usr1-" + std::to_string(::getpid());
    std::filesystem::remove(mark);
    const int64_t id = submit(request(
        uniqueTag("sig"), "", "trap 'touch " + mark + "' USR1; while :; do sleep 0.1; done"));
    placeAndRelease(id, {"node1"});
    waitState(id, JobState::Running);
    QTest::qWait(300);  // the batch shell must have set its trap
    QVERIFY(client_.signal(id, SIGUSR1).ok());
    QTRY_VERIFY_WITH_TIMEOUT(std::filesystem::exists(mark), 10000);
    std::filesystem::remove(mark);
  }

  void requeueHoldThenStartNowOnAnotherNode() {
    const int64_t id = submit(request(uniqueTag("requeue"), "gpu:h100:1", "sleep 300"));
    placeAndRelease(id, {"node1"});
    waitState(id, JobState::Running);
    QVERIFY(client_.requeueHold(id).ok());
    const auto held = waitFor(id, [](const SlurmJob& j) {
      return j.state == JobState::Pending && j.held && j.restartCount == 1;
    });
    QVERIFY(held.priority == 0);
    placeAndRelease(id, {"node2"});
    // A requeued job is not eligible for 121 s (BeginTime): StartTime=now clears that.
    QVERIFY(client_.startNow(id).ok());
    const auto job = waitState(id, JobState::Running, 20s);
    QCOMPARE(job.nodes, std::vector<std::string>{"node2"});
    QCOMPARE(job.restartCount, 1);
  }

  void drainWithReasonAndResume() {
    const std::string reason = "tessera test: psu swap [rack 4]; $(no shell)";
    QVERIFY(client_.drain("node2", reason).ok());
    const auto drained = node("node2");
    QVERIFY(drained.hasFlag("DRAIN"));
    QCOMPARE(drained.reason, reason);
    QCOMPARE(drained.reasonSetByUser, std::string("root"));
    const auto listed = runRaw({"sinfo", "-R", "-h", "-o", "%E|%N"});
    QVERIFY2(listed.out.find(reason + "|node2") != std::string::npos, listed.out.c_str());
    QVERIFY(client_.resume("node2").ok());
    QTRY_VERIFY_WITH_TIMEOUT(!node("node2").hasFlag("DRAIN"), 10000);
    QVERIFY(!client_.drain("node9", "x").ok());
  }

  void reservationCreateAndDelete() {
    const std::string name = "tess_" + std::to_string(::getpid());
    QVERIFY(client_.createReservation({name, {"node1"}, std::nullopt, 10, "root"}).ok());
    auto shown = runRaw({"scontrol", "-o", "show", "reservation", name});
    QVERIFY2(shown.ok() && shown.out.find("Nodes=node1") != std::string::npos, shown.out.c_str());
    QVERIFY(!client_.createReservation({name, {"node1"}, std::nullopt, 10, "root"}).ok());
    QVERIFY(client_.deleteReservation(name).ok());
    QVERIFY(!runRaw({"scontrol", "-o", "show", "reservation", name}).ok());
    QVERIFY(!client_.deleteReservation(name).ok());
  }

  void gateHoldsUntaggedJobsOnly() {
    const auto plain =
        runRaw({"sbatch", "--parsable", "-t", "1", "--chdir", jobDir_, "--wrap", "sleep 300"});
    QVERIFY2(plain.ok(), plain.err.c_str());
    QVERIFY2(plain.err.find("tessera: job held") != std::string::npos, plain.err.c_str());
    const int64_t plainId = std::stoll(plain.out);
    submitted_.push_back(plainId);
    const auto gated = waitFor(plainId, [](const SlurmJob& j) { return j.held; });
    QCOMPARE(gated.stateReason, std::string("JobHeldUser"));
    QCOMPARE(gated.priority, int64_t{0});
    const auto tagged = runRaw({"sbatch", "--parsable", "-t", "1", "--chdir", jobDir_,
                                "--comment=tessera:" + uniqueTag("gate"), "--wrap", "sleep 300"});
    QVERIFY2(tagged.ok(), tagged.err.c_str());
    QVERIFY(tagged.err.find("tessera: job held") == std::string::npos);
    const int64_t taggedId = std::stoll(tagged.out);
    submitted_.push_back(taggedId);
    waitState(taggedId, JobState::Running);
  }

  void impossiblePinEndsAsBadConstraints() {
    // node3 has no h100: Slurm accepts the pin and only refuses at release.
    const int64_t id = submit(request(uniqueTag("bad"), "gpu:h100:2", "true"));
    placeAndRelease(id, {"node3"});
    const auto job =
        waitFor(id, [](const SlurmJob& j) { return j.stateReason == "BadConstraints"; });
    QCOMPARE(job.state, JobState::Pending);
    QCOMPARE(job.priority, int64_t{0});
  }

  // Last: the job submitted in initTestCase has had most of its minute by now.
  void timeLimitEndsAsTimeout() {
    const auto job = waitState(timeoutJob_, JobState::Timeout, 150s);
    QCOMPARE(job.stateReason, std::string("TimeLimit"));
    QCOMPARE(job.nodes, std::vector<std::string>{"node3"});
    timeoutJob_ = 0;
  }
};

QTEST_GUILESS_MAIN(TestSlurmClient)
#include "tst_slurm_client.moc"
