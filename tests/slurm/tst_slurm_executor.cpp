// Tessera decides, Slurm runs: a live Backend with the Slurm executor against the real daemons
// the slurm_cluster fixture started (munged, slurmctld, node1..node3 with fake GPUs and the
// gate). Every check reads Slurm's own state (squeue/sinfo --json) beside the engine's.
#include <QtTest>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <thread>

#include "../service/backend_test_util.h"
#include "clusterspec/cluster_spec.h"
#include "executor/slurm_executor.h"
#include "service/backend.h"
#include "slurm/process_runner.h"
#include "slurm/slurm_client.h"
#include "slurm_live_util.h"
#include "slurm_test_env.h"

using namespace tessera;
using namespace tessera::test;
using Clock = std::chrono::steady_clock;

namespace {

// Polls `done` until it holds or `seconds` pass; the message says what was awaited.
bool eventually(const std::function<bool()>& done, double seconds = 20) {
  const auto until = Clock::now() + std::chrono::duration<double>(seconds);
  while (Clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return done();
}

Workload tenants() {
  Workload w;
  w.teams = {Team{"research", "", 1, {}}, Team{"vision", "research", 1, {}},
             Team{"adopted", "research", 1, {}}};
  return w;
}

Job job(const std::string& command, int tasks, int gpus, const std::string& model = "") {
  Job j;
  j.name = "t";
  j.team = "vision";
  j.priorityClass = "experiment";
  j.tasks = tasks;
  j.perTask.kind = GpuRequest::Kind::Whole;
  j.perTask.gpus = gpus;
  if (!model.empty()) j.model.models = {model};
  j.launch.command = command;
  j.launch.timeLimitMinutes = 5;
  j.launch.workDir = fixtureEnv("TESSERA_SLURM_CLUSTER") + "/jobs";
  j.launch.output = j.launch.workDir + "/tessera-%j.out";
  return j;
}

}  // namespace

class TstSlurmExecutor : public QObject {
  Q_OBJECT

  slurm::ProcessRunner runner_{4};
  std::unique_ptr<slurm::SlurmClient> slurm_;
  std::filesystem::path dir_;
  std::unique_ptr<Backend> backend_;
  std::shared_ptr<const Cluster> cluster_;

  // Start latencies the executor measured (worker thread).
  std::shared_ptr<std::mutex> latencyMutex_ = std::make_shared<std::mutex>();
  std::shared_ptr<std::vector<double>> latencies_ = std::make_shared<std::vector<double>>();

  SlurmExecutorConfig executorConfig() {
    SlurmExecutorConfig c;
    c.client.environment["SLURM_CONF"] = fixtureEnv("SLURM_CONF");
    c.pollSeconds = 0.3;
    c.defaultTeam = "adopted";
    // The site's MIG hook, faked: it records its arguments (and sees the files in place).
    c.driver.migDir = (dir_ / "mig").string();
    c.driver.migHook = {
        "/bin/sh", "-c",
        "printf '%s\\n' \"$1\" \"$2\" > \"$2/hook-ran\" && test -s \"$2/mig-parted.yaml\"",
        "apply-mig"};
    c.onStartLatency = [m = latencyMutex_, v = latencies_](double s) {
      std::lock_guard lock(*m);
      v->push_back(s);
    };
    return c;
  }

  std::vector<double> latencies() {
    std::lock_guard lock(*latencyMutex_);
    return *latencies_;
  }

  std::unique_ptr<Backend> open(double cycleSeconds = 0.2) {
    BackendConfig c;
    c.database = (dir_ / "tesserad.db").string();
    c.mode = BackendMode::Live;
    c.cluster = cluster_;
    c.tenants = tenants();
    c.cycleSeconds = cycleSeconds;
    const SlurmExecutorConfig ec = executorConfig();
    c.executor = [ec] {
      return std::make_unique<SlurmExecutor>(std::make_unique<slurm::ProcessRunner>(4), ec);
    };
    auto b = Backend::open(std::move(c));
    if (!b) qFatal("%s", b.error().str().c_str());
    return std::move(*b);
  }

  JobId submit(Job j) {
    auto ids = await<std::vector<JobId>>(
        [&](auto r) { backend_->submit({std::move(j)}, Caller{"alice"}, std::nullopt, r); });
    return ok(ids).front();
  }

  CommandResult act(Command c) {
    return ok(await<CommandResult>(
        [&](auto r) { backend_->act(std::move(c), false, Caller{"alice"}, std::nullopt, r); }));
  }

  ClusterSnapshot snapshot() {
    return ok(await<ClusterSnapshot>([&](auto r) { backend_->snapshot(r); }));
  }

  JobInfo info(JobId id) {
    return ok(await<JobInfo>([&](auto r) { backend_->job(id, r); }));
  }

  // The tag of Tessera's job `id` in Slurm, read off the Slurm job the backend reports (so
  // another database's jobs never match); empty until the executor has submitted it.
  std::string tagOf(JobId id) {
    const auto known = info(id).external;
    if (!known) return {};
    auto everything = slurm_->jobs();
    if (!everything) qFatal("%s", everything.error().str().c_str());
    for (const auto& s : everything->jobs)
      if (std::to_string(s.id) == known->id && s.tesseraId) return *s.tesseraId;
    return {};
  }

  std::string awaitTag(JobId id) {
    std::string tag;
    if (!eventually([&] { return !(tag = tagOf(id)).empty(); }))
      qFatal("job %llu never reached Slurm", static_cast<unsigned long long>(id));
    return tag;
  }

  // Slurm's live jobs with `tag` (finished ones too when `all`).
  std::vector<slurm::SlurmJob> slurmJobs(const std::string& tag, bool all = false) {
    auto found = slurm_->findByTag(tag);
    if (!found) qFatal("%s", found.error().str().c_str());
    std::vector<slurm::SlurmJob> out;
    for (auto& s : *found)
      if (all || !slurm::isFinished(s.state)) out.push_back(std::move(s));
    return out;
  }

  bool runningInSlurmOn(const std::string& tag, const std::vector<std::string>& nodes) {
    const auto live = slurmJobs(tag);
    return live.size() == 1 && live.front().state == slurm::JobState::Running &&
           live.front().nodes == nodes;
  }

  std::vector<std::string> engineNodes(JobId id) {
    std::vector<std::string> out;
    for (const PlacedTask& t : info(id).placement)
      if (std::find(out.begin(), out.end(), t.node) == out.end()) out.push_back(t.node);
    std::sort(out.begin(), out.end());
    return out;
  }

  // sbatch as a user would (through the gate, so held): the Slurm job id.
  int64_t plainSbatch(std::vector<std::string> options) {
    slurm::CommandRequest r;
    r.argv = {"sbatch", "--parsable", "-t",
              "2",      "--chdir",    fixtureEnv("TESSERA_SLURM_CLUSTER") + "/jobs"};
    r.argv.insert(r.argv.end(), options.begin(), options.end());
    r.environment["SLURM_CONF"] = fixtureEnv("SLURM_CONF");
    auto done = runner_.run(r);
    if (!done || !done->ok()) qFatal("sbatch failed");
    return std::stoll(done->out);
  }

  // The engine job an adopted Slurm job became, once its tag shows in Slurm.
  JobId adoptedAs(int64_t slurmId) {
    JobId adopted = kNoJob;
    eventually([&] {
      const auto all = slurm_->jobs();
      if (!all) return false;
      for (const auto& s : all->jobs)
        if (s.id == slurmId && s.tesseraId)  // tessera:<instance>.<job>
          adopted = std::stoull(s.tesseraId->substr(s.tesseraId->find('.') + 1));
      return adopted != kNoJob;
    });
    return adopted;
  }

  // The raw `scontrol -o show reservation` line of the reservation whose name ends in `suffix`.
  std::string slurmReservation(const std::string& suffix) {
    slurm::CommandRequest r;
    r.argv = {"scontrol", "-o", "show", "reservation"};
    r.environment["SLURM_CONF"] = fixtureEnv("SLURM_CONF");
    auto done = runner_.run(r);
    if (!done) return {};
    std::istringstream lines(done->out);
    for (std::string line; std::getline(lines, line);) {
      const auto name = line.find("ReservationName=");
      const auto end = line.find(' ', name);
      if (name == std::string::npos) continue;
      const std::string n = line.substr(name + 16, end - name - 16);
      if (n.size() >= suffix.size() &&
          n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
        return line;
    }
    return {};
  }

  slurm::SlurmNode slurmNode(const std::string& name) {
    auto nodes = slurm_->nodes();
    if (!nodes) qFatal("%s", nodes.error().str().c_str());
    for (auto& n : nodes->nodes)
      if (n.name == name) return n;
    qFatal("no node %s", name.c_str());
  }

 private slots:
  void initTestCase() {
    slurm_ = fixtureClient(runner_);
    auto loaded = loadClusterSpecFile(std::string(TESSERA_TEST_DATA) + "/fixture-cluster.yaml");
    QVERIFY2(loaded, loaded ? "" : loaded.error().str().c_str());
    cluster_ = *loaded;
    dir_ = scratchDir("slurm-executor");
    // The cluster is this test run's own: whatever another test left running would hold GPUs
    // the engine (which never saw those jobs) counts as free.
    slurm::CommandRequest cancel;
    cancel.argv = {"scancel", "--user=root"};
    cancel.environment["SLURM_CONF"] = fixtureEnv("SLURM_CONF");
    QVERIFY(runner_.run(cancel));
    QVERIFY(eventually([&] {
      const auto all = slurm_->jobs();
      return all && std::none_of(all->jobs.begin(), all->jobs.end(),
                                 [](const auto& j) { return !slurm::isFinished(j.state); });
    }));
    for (const char* n : {"node1", "node2", "node3"})
      if (slurmNode(n).hasFlag("DRAIN")) QVERIFY(slurm_->resume(n));
    backend_ = open();
  }

  void cleanupTestCase() {
    backend_.reset();
    std::filesystem::remove_all(dir_);
  }

  // The operator pins a job to node2: Slurm on its own would start it on node1 (its first
  // idle node); it runs on node2, the engine's choice.
  void aJobRunsWhereTheEngineChose() {
    Job j = job("sleep 30", 1, 1, "H100-SXM5-80GB");
    j.pinNodes = {"node2"};
    const JobId id = submit(j);
    const std::string tag = awaitTag(id);
    QVERIFY(eventually([&] { return runningInSlurmOn(tag, {"node2"}); }));
    QCOMPARE(info(id).row.state, JobState::Running);
    QCOMPARE(engineNodes(id), std::vector<std::string>{"node2"});
    // Its start was timed from the engine's decision (the executor's start histogram).
    QVERIFY(eventually([&] { return !latencies().empty(); }, 5));
    QVERIFY(latencies().front() > 0 && latencies().front() < 20);
    act(Command{cmd::Cancel{id}});
    QVERIFY(eventually([&] { return slurmJobs(tag).empty(); }));
    QCOMPARE(slurmJobs(tag, true).front().state, slurm::JobState::Cancelled);
  }

  // A 2-node gang of 4 H100 per task fits only on node1+node2 together: both start, all or
  // nothing, on exactly the engine's two nodes.
  void aGangRunsOnExactlyTheEnginesNodes() {
    const JobId id = submit(job("srun hostname; sleep 30", 2, 4, "H100-SXM5-80GB"));
    const std::string tag = awaitTag(id);
    QVERIFY(eventually([&] { return info(id).row.state == JobState::Running; }));
    const auto nodes = engineNodes(id);
    QCOMPARE(nodes, (std::vector<std::string>{"node1", "node2"}));
    QVERIFY(eventually([&] { return runningInSlurmOn(tag, nodes); }));
    act(Command{cmd::Cancel{id}});
    QVERIFY(eventually([&] { return slurmJobs(tag).empty(); }));
  }

  // Ends reach the engine as its own completion and failure, with Slurm's words.
  void endsReachTheEngine() {
    const JobId good = submit(job("true", 1, 1));
    const JobId bad = submit(job("exit 3", 1, 1));
    const std::string goodTag = awaitTag(good);
    QVERIFY(eventually([&] { return info(good).row.state == JobState::Completed; }, 30));
    QVERIFY(eventually([&] { return info(bad).row.state == JobState::Failed; }, 30));
    const std::string why = info(bad).row.reason.english();
    QVERIFY2(why.find("exit code 3") != std::string::npos, why.c_str());
    QCOMPARE(slurmJobs(goodTag, true).front().state, slurm::JobState::Completed);
  }

  // A user's plain sbatch is held by the gate, adopted into the engine's queue, placed,
  // released and run; its end reaches the engine.
  void aPlainSbatchIsAdoptedAndRun() {
    const int64_t slurmId = plainSbatch({"--gres=gpu:h100:1", "--wrap", "sleep 2"});
    const JobId adopted = adoptedAs(slurmId);
    QVERIFY(adopted != kNoJob);
    const JobInfo i = info(adopted);
    QCOMPARE(i.row.job.team, std::string("adopted"));
    QCOMPARE(i.row.job.perTask.gpus, 1);
    QCOMPARE(i.row.job.model.models, std::vector<std::string>{"H100-SXM5-80GB"});
    const bool completed =
        eventually([&] { return info(adopted).row.state == JobState::Completed; }, 30);
    QVERIFY2(completed, (std::string(jobStateName(info(adopted).row.state)) + ": " +
                         info(adopted).row.reason.english())
                            .c_str());
  }

  // Slurm binds a node's GPUs itself (the lowest free ones): pinned by the operator to GPU 3 in
  // Tessera, the job gets another one in Slurm, and the engine's map follows what Slurm bound.
  void theEnginesGpusFollowSlurmsBinding() {
    Job j = job("sleep 30", 1, 1, "H100-SXM5-80GB");
    j.pinGpus = {"node2/3"};
    const JobId id = submit(j);
    const std::string tag = awaitTag(id);
    QVERIFY(eventually([&] { return runningInSlurmOn(tag, {"node2"}); }));
    const auto live = slurmJobs(tag);
    QCOMPARE(live.front().gresDetail.size(), size_t{1});
    const std::vector<int> bound = live.front().gresDetail.front().gres.front().indices;
    QCOMPARE(bound.size(), size_t{1});
    QVERIFY2(bound.front() != 3, "Slurm bound GPU 3 itself: the premise of this test is gone");
    QVERIFY(eventually([&] { return info(id).placement.front().gpus == bound; }, 10));
    act(Command{cmd::Cancel{id}});
    QVERIFY(eventually([&] { return slurmJobs(tag).empty(); }));
  }

  // A job already running in Slurm when tesserad starts (released behind Tessera, untagged)
  // occupies its GPUs in the engine: taken in as running on exactly the GPUs Slurm bound, so
  // the next whole-node job goes to the other H100 node, never onto node1.
  void aJobRunningBeforeTesseraKeepsItsGpus() {
    backend_.reset();
    const int64_t foreign = plainSbatch({"--gres=gpu:h100:4", "-w", "node1", "--wrap", "sleep 60"});
    QVERIFY(slurm_->release(foreign));
    QVERIFY(eventually([&] {
      const auto all = slurm_->jobs();
      if (!all) return false;
      for (const auto& s : all->jobs)
        if (s.id == foreign) return s.state == slurm::JobState::Running;
      return false;
    }));
    backend_ = open();
    const JobId taken = adoptedAs(foreign);
    QVERIFY(taken != kNoJob);
    const JobInfo t = info(taken);
    QCOMPARE(t.row.state, JobState::Running);
    QCOMPARE(engineNodes(taken), std::vector<std::string>{"node1"});
    QCOMPARE(t.placement.front().gpus.size(), size_t{4});
    const JobId next = submit(job("sleep 30", 1, 4, "H100-SXM5-80GB"));
    const std::string tag = awaitTag(next);
    QCOMPARE(engineNodes(next), std::vector<std::string>{"node2"});
    QVERIFY(eventually([&] { return runningInSlurmOn(tag, {"node2"}); }));
    const auto all = slurm_->jobs();
    QVERIFY(all);
    for (const auto& s : all->jobs)
      if (s.id == foreign) QCOMPARE(s.restartCount, 0);  // left running, never requeued
    act(Command{cmd::Cancel{taken}});
    act(Command{cmd::Cancel{next}});
    QVERIFY(eventually([&] { return slurmJobs(tag).empty(); }));
  }

  // A job's end reaches the engine at once, not at the next cycle: cycles every 60 s here, yet
  // the engine sees the end within a few polls (the executor wakes the engine thread).
  void anEndReachesTheEngineBeforeTheNextCycle() {
    backend_.reset();
    backend_ = open(60);
    const JobId id = submit(job("sleep 1", 1, 1));
    (void)ok(await<CycleStats>([&](auto r) { backend_->cycleNow(r); }));
    QCOMPARE(info(id).row.state, JobState::Running);
    const bool ended = eventually([&] { return info(id).row.state == JobState::Completed; }, 15);
    backend_.reset();
    backend_ = open();
    QVERIFY2(ended, jobStateName(info(id).row.state));
  }

  // The operator's maintenance window is a MAINT reservation on the node in Slurm; deleted in
  // Tessera, it is deleted in Slurm.
  void aMaintenanceWindowIsASlurmReservation() {
    const Seconds now = snapshot().now;
    act(Command{cmd::CreateReservation{"psu-swap", {"node3"}, now + 3600, now + 7200, ""}});
    QVERIFY(eventually([&] { return !slurmReservation("-psu-swap").empty(); }));
    const std::string line = slurmReservation("-psu-swap");
    QVERIFY2(line.find("Nodes=node3 ") != std::string::npos, line.c_str());
    QVERIFY2(line.find("MAINT") != std::string::npos, line.c_str());
    act(Command{cmd::DeleteReservation{"psu-swap"}});
    QVERIFY(eventually([&] { return slurmReservation("-psu-swap").empty(); }));
  }

  // Preempted: requeued held in Slurm, placed again by the engine, running again (restart 1).
  void aPreemptedJobIsRequeuedAndPlacedAgain() {
    const JobId id = submit(job("sleep 60", 1, 1, "H100-SXM5-80GB"));
    const std::string tag = awaitTag(id);
    QVERIFY(eventually([&] {
      return !slurmJobs(tag).empty() && slurmJobs(tag).front().state == slurm::JobState::Running;
    }));
    act(Command{cmd::Preempt{id}});
    const bool again = eventually(
        [&] {
          const auto live = slurmJobs(tag);
          return live.size() == 1 && live.front().restartCount == 1 &&
                 live.front().state == slurm::JobState::Running;
        },
        30);
    std::string seen;
    for (const auto& s : slurmJobs(tag, true))
      seen += std::to_string(s.id) + " " + s.stateText + " (" + s.stateReason + ") restarts " +
              std::to_string(s.restartCount) + "; ";
    seen += "engine: " + std::string(jobStateName(info(id).row.state)) + " " +
            info(id).row.reason.english();
    QVERIFY2(again, seen.c_str());
    QCOMPARE(info(id).row.state, JobState::Running);
    QCOMPARE(info(id).row.preemptions, 1);
    act(Command{cmd::Cancel{id}});
    QVERIFY(eventually([&] { return slurmJobs(tag).empty(); }));
  }

  // The operator's drain is Slurm's drain with the reason; undrain resumes it.
  void aDrainReachesSlurm() {
    act(Command{cmd::Drain{"node3", literal("psu swap")}});
    QVERIFY(eventually([&] {
      const auto n = slurmNode("node3");
      return n.hasFlag("DRAIN") && n.reason == "tessera: psu swap";
    }));
    act(Command{cmd::Undrain{"node3"}});
    QVERIFY(eventually([&] { return !slurmNode("node3").hasFlag("DRAIN"); }));
  }

  // An operator's repartition: Slurm drains node3 (its jobs end first), the site's hook gets the
  // node and the directory with the new layout's files, and node3 is resumed.
  void aMigRepartitionRunsTheSiteHook() {
    act(Command{cmd::Repartition{"node3/3", "1g.10gb@0,1g.10gb@1,1g.10gb@2", false}});
    const std::filesystem::path node3 = dir_ / "mig" / "node3";
    QVERIFY(eventually([&] { return std::filesystem::exists(node3 / "hook-ran"); }, 30));
    std::ifstream ran(node3 / "hook-ran");
    std::string node, where;
    std::getline(ran, node);
    std::getline(ran, where);
    QCOMPARE(node, std::string("node3"));
    QCOMPARE(where, node3.string());
    std::ifstream parted(node3 / "mig-parted.yaml");
    const std::string text((std::istreambuf_iterator<char>(parted)),
                           std::istreambuf_iterator<char>());
    QVERIFY2(text.find("- devices: [3]\n      mig-enabled: true\n      mig-devices:\n"
                       "        \"1g.10gb\": 3") != std::string::npos,
             text.c_str());
    QVERIFY(eventually([&] { return !slurmNode("node3").hasFlag("DRAIN"); }));
    bool held = true;
    QVERIFY(eventually([&] {
      backend_->inspect([&](const Engine& e) {
        held = e.nodeHolds(e.cluster().findNode("node3")->id).find(HoldOwner::Executor);
      });
      return !held;
    }));
  }

  // A drain made in Slurm is the executor's hold in the engine, with Slurm's reason; an
  // operator's undrain in Tessera resumes it in Slurm.
  void aSlurmDrainIsAHoldTheOperatorCanClear() {
    QVERIFY(slurm_->drain("node3", "bad fan"));
    bool held = false;
    QVERIFY(eventually([&] {
      backend_->inspect([&](const Engine& e) {
        const NodeHold* h =
            e.nodeHolds(e.cluster().findNode("node3")->id).find(HoldOwner::Executor);
        held = h && h->reason.english() == "Slurm: bad fan";
      });
      return held;
    }));
    act(Command{cmd::Undrain{"node3"}});
    QVERIFY(eventually([&] { return !slurmNode("node3").hasFlag("DRAIN"); }));
  }

  // slurmctld killed mid-run: the executor says "unavailable", the queue keeps accepting work;
  // restarted, the job submitted meanwhile runs and the running one is still the same single
  // Slurm job.
  void aControllerRestartLosesNothing() {
    const JobId first = submit(job("sleep 60", 1, 1));
    const std::string firstTag = awaitTag(first);
    QVERIFY(eventually([&] { return runningInSlurmOn(firstTag, engineNodes(first)); }));
    // slurmctld saves its state every few seconds: past that, a kill loses nothing of it.
    std::this_thread::sleep_for(std::chrono::seconds(6));
    const std::string cluster = fixtureEnv("TESSERA_SLURM_CLUSTER");
    std::ifstream pidFile(cluster + "/run/slurmctld.pid");
    pid_t pid = 0;
    pidFile >> pid;
    QVERIFY(pid > 0);
    QCOMPARE(::kill(pid, SIGKILL), 0);
    const JobId second = submit(job("sleep 30", 1, 1));  // accepted while Slurm is away
    QVERIFY(eventually([&] { return snapshot().executor.state == "unavailable"; }, 40));
    QVERIFY(!snapshot().executor.detail.empty());
    // What GetHealth's details say, while the backend keeps serving.
    QVERIFY(
        eventually([&] { return backend_->executorStatus().state == ExecutorState::Unavailable; }));
    QVERIFY(backend_->health().serving);
    slurm::CommandRequest restart;
    restart.argv = {"slurmctld", "-f", fixtureEnv("SLURM_CONF")};
    restart.environment["SLURM_CONF"] = fixtureEnv("SLURM_CONF");
    restart.environment["TESSERA_SLURM_FIXTURE"] = cluster;
    QVERIFY(runner_.run(restart));
    QVERIFY(eventually([&] { return snapshot().executor.state == "ready"; }, 60));
    const std::string secondTag = awaitTag(second);
    QVERIFY(eventually([&] { return runningInSlurmOn(secondTag, engineNodes(second)); }, 60));
    QCOMPARE(slurmJobs(firstTag).size(), size_t{1});
    QCOMPARE(info(first).row.state, JobState::Running);
    act(Command{cmd::Cancel{first}});
    act(Command{cmd::Cancel{second}});
    QVERIFY(
        eventually([&] { return slurmJobs(firstTag).empty() && slurmJobs(secondTag).empty(); }));
  }

  // tesserad stopped and started again over the same database: the jobs it had are the same
  // Slurm jobs, none submitted twice.
  void aRestartDuplicatesNothing() {
    const JobId id = submit(job("sleep 60", 1, 1));
    const std::string tag = awaitTag(id);
    QVERIFY(eventually([&] { return runningInSlurmOn(tag, engineNodes(id)); }));
    const int64_t slurmId = slurmJobs(tag).front().id;
    backend_.reset();
    backend_ = open();
    std::this_thread::sleep_for(std::chrono::seconds(2));  // a few polls and cycles
    const auto live = slurmJobs(tag);
    QCOMPARE(live.size(), size_t{1});
    QCOMPARE(live.front().id, slurmId);
    QCOMPARE(info(id).row.state, JobState::Running);
    QCOMPARE(tagOf(id), tag);  // the same database name after the restart
    act(Command{cmd::Cancel{id}});
    QVERIFY(eventually([&] { return slurmJobs(tag).empty(); }));
  }
};

QTEST_GUILESS_MAIN(TstSlurmExecutor)
#include "tst_slurm_executor.moc"
