// SlurmClient with a replaying runner: which commands it runs (argv exactly as the programs get
// it), and how it reads their answers and errors. The real daemons: tst_slurm_client.
#include <QtTest>

#include <deque>
#include <fstream>
#include <sstream>

#include "replay_runner.h"
#include "slurm/slurm_client.h"

using namespace tessera;
using namespace tessera::slurm;

namespace {

using Args = std::vector<std::string>;

std::string readData(const char* name) {
  std::ifstream in(std::string(TESSERA_TEST_DATA) + "/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

SubmitRequest scriptJob() {
  SubmitRequest r;
  r.tesseraId = "j-7";
  r.name = "train; rm -rf / $(x)";
  r.timeLimitMinutes = 30;
  r.nodes = 2;
  r.gres = "gpu:h100:4";
  r.partition = "gpu";
  r.script = "#!/bin/bash\nsrun python train.py\n";
  return r;
}

}  // namespace

class TestSlurmCommands : public QObject {
  Q_OBJECT

 private slots:
  void submitHeldArgvAndScript() {
    ReplayRunner runner;
    runner.answer("42;tessera-test\n");
    SlurmClient client(runner, {{{"SLURM_CONF", "/c/slurm.conf"}}, "/opt/slurm/bin", {}, {}});
    auto id = client.submitHeld(scriptJob());
    QVERIFY2(id.ok(), id.ok() ? "" : id.error().str().c_str());
    QCOMPARE(*id, int64_t{42});
    const auto& req = runner.requests.at(0);
    QCOMPARE(req.argv, (Args{"/opt/slurm/bin/sbatch", "--parsable", "--hold", "--requeue",
                             "--comment=tessera:j-7", "--time=30", "--nodes=2", "--job-name",
                             "train; rm -rf / $(x)", "--partition", "gpu", "--gres=gpu:h100:4"}));
    QCOMPARE(req.stdinData, std::optional<std::string>("#!/bin/bash\nsrun python train.py\n"));
    QCOMPARE(req.environment.at("SLURM_CONF"), std::string("/c/slurm.conf"));
  }

  void submitWrapAndValidation() {
    SubmitRequest r;
    r.tesseraId = "a";
    r.timeLimitMinutes = 5;
    r.wrap = "echo hi";
    r.output = "/o";
    auto args = sbatchArguments(r);
    QVERIFY(args.ok());
    QCOMPARE(args->back(), std::string("echo hi"));
    QCOMPARE(args->at(args->size() - 2), std::string("--wrap"));
    auto noLimit = r;
    noLimit.timeLimitMinutes = 0;
    QVERIFY(!sbatchArguments(noLimit).ok());
    auto both = r;
    both.script = "#!/bin/sh\n";
    QVERIFY(!sbatchArguments(both).ok());
    auto spaced = r;
    spaced.tesseraId = "a b";
    QVERIFY(!sbatchArguments(spaced).ok());
  }

  // An MPS client's limits travel as --export=ALL,... (the submitter's environment kept); a value
  // Slurm would split at a comma, or a name no shell could hold, is refused naming it.
  void submitEnvironmentIsExported() {
    SubmitRequest r;
    r.tesseraId = "a";
    r.timeLimitMinutes = 5;
    r.wrap = "nvidia-smi";
    r.environment = {{"CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", "25"},
                     {"CUDA_MPS_PINNED_DEVICE_MEM_LIMIT", "0=8192M"}};
    auto args = sbatchArguments(r);
    QVERIFY2(args.ok(), args.ok() ? "" : args.error().str().c_str());
    QCOMPARE(args->at(args->size() - 3),
             std::string("--export=ALL,CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25,"
                         "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=8192M"));
    r.environment.clear();
    args = sbatchArguments(r);
    QVERIFY(args.ok());
    QVERIFY(std::none_of(args->begin(), args->end(),
                         [](const std::string& a) { return a.starts_with("--export"); }));
    auto comma = r;
    comma.environment = {{"LIST", "a,b"}};
    const auto refused = sbatchArguments(comma);
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error().message.find("LIST") != std::string::npos,
             refused.error().str().c_str());
    auto badName = r;
    badName.environment = {{"A-B", "1"}};
    QVERIFY(!sbatchArguments(badName).ok());
  }

  void errorsCarrySlurmsMessage() {
    ReplayRunner runner;
    runner.answer("", 1, "slurm_update error: Invalid job id specified\n");
    SlurmClient client(runner);
    auto st = client.pin(99, {"node1", "node2"});
    QVERIFY(!st.ok());
    QCOMPARE(runner.requests[0].argv,
             (Args{"scontrol", "update", "JobId=99", "ReqNodeList=node1,node2", "NumNodes=2"}));
    QVERIFY(st.error().message.find("Invalid job id specified") != std::string::npos);
    QVERIFY(st.error().message.find("scontrol update JobId=99") != std::string::npos);
    QCOMPARE(st.error().refusal, Refusal::NotFound);
    QVERIFY(!client.pin(99, {}).ok());
    // scancel exits 0 for an unknown job id and says so only with --verbose (Slurm 22.05.8).
    runner.answer("", 0,
                  "scancel: Terminating job 99\n"
                  "scancel: error: Kill job error on job id 99: Invalid job id specified\n");
    auto cancelled = client.cancel(99);
    QVERIFY(!cancelled.ok());
    QCOMPARE(runner.requests.back().argv, (Args{"scancel", "--verbose", "99"}));
    QCOMPARE(cancelled.error().refusal, Refusal::NotFound);
    QVERIFY(cancelled.error().message.find("Invalid job id") != std::string::npos);
    // An already finished job: nothing to do, no error.
    runner.answer("", 0,
                  "scancel: Terminating job 98\n"
                  "scancel: error: Kill job error on job id 98: Job/step already completing or "
                  "completed\n");
    QVERIFY(client.cancel(98).ok());
  }

  void operationsArgv() {
    ReplayRunner runner;
    for (int i = 0; i < 9; ++i) runner.answer("");
    SlurmClient client(runner);
    QVERIFY(client.drain("node3", "psu swap; $(reboot)").ok());
    QVERIFY(client.resume("node3").ok());
    QVERIFY(client.signal(5, 10).ok());
    QVERIFY(client.signal(5, 10, SignalScope::BatchShell).ok());
    QVERIFY(client.requeueHold(5).ok());
    QVERIFY(client.startNow(5).ok());
    QVERIFY(client.setPriority(5, 1000).ok());
    QVERIFY(client.createReservation({"maint", {"node1", "node2"}, std::nullopt, 30, "root"}).ok());
    QVERIFY(client.deleteReservation("maint").ok());
    const auto& r = runner.requests;
    QCOMPARE(r[0].argv, (Args{"scontrol", "update", "NodeName=node3", "State=DRAIN",
                              "Reason=psu swap; $(reboot)"}));
    QCOMPARE(r[1].argv, (Args{"scontrol", "update", "NodeName=node3", "State=RESUME"}));
    QCOMPARE(r[2].argv, (Args{"scancel", "--verbose", "--signal=10", "--full", "5"}));
    QCOMPARE(r[3].argv, (Args{"scancel", "--verbose", "--signal=10", "--batch", "5"}));
    QCOMPARE(r[4].argv, (Args{"scontrol", "requeuehold", "5"}));
    QCOMPARE(r[5].argv, (Args{"scontrol", "update", "JobId=5", "StartTime=now"}));
    QCOMPARE(r[6].argv, (Args{"scontrol", "update", "JobId=5", "Priority=1000"}));
    QCOMPARE(r[7].argv,
             (Args{"scontrol", "create", "reservation", "ReservationName=maint", "StartTime=now",
                   "Duration=30", "Nodes=node1,node2", "Users=root", "Flags=IGNORE_JOBS"}));
    QCOMPARE(r[8].argv, (Args{"scontrol", "delete", "ReservationName=maint"}));
    QVERIFY(!client.drain("node3", " ").ok());  // Slurm requires a reason
  }

  void findByTagMatchesTheComment() {
    ReplayRunner runner;
    runner.answer(readData("squeue-all.json"));
    SlurmClient client(runner);
    auto found = client.findByTag("rec-exit3");
    QVERIFY(found.ok());
    QCOMPARE(found->size(), size_t{1});
    QCOMPARE(found->at(0).id, int64_t{6});
    QCOMPARE(runner.requests[0].argv, (Args{"squeue", "--json", "--states=all"}));
    runner.answer(readData("squeue-all.json"));
    QVERIFY(client.findByTag("rec-exit").value().empty());  // whole ids, not prefixes
  }

  void readsTopologyAndConfig() {
    ReplayRunner runner;
    runner.answer(readData("show-topology.txt"));
    runner.answer(readData("show-config.txt"));
    runner.answer("", 0);
    runner.answer("{", 0);
    SlurmClient client(runner);
    auto topo = client.topology();
    QVERIFY(topo.ok() && topo->size() == 3);
    auto config = client.config();
    QVERIFY(config.ok());
    QCOMPARE(userNameOf(config->get("SlurmUser")), std::string("root"));
    QVERIFY(!client.jobs().ok());   // empty output is no document
    QVERIFY(!client.nodes().ok());  // nor is a truncated one
  }

  void timeoutIsReported() {
    // A runner whose every command ran out of time.
    class LateRunner final : public CommandRunner {
     public:
      Expected<CommandResult> run(const CommandRequest&) override {
        CommandResult late;
        late.timedOut = true;
        late.signal = 15;
        late.wallTime = std::chrono::milliseconds(20000);
        return late;
      }
    } lateRunner;
    SlurmClient slow(lateRunner);
    auto st = slow.release(3);
    QVERIFY(!st.ok());
    QVERIFY(st.error().message.find("timed out after 20000 ms") != std::string::npos);
  }
};

QTEST_GUILESS_MAIN(TestSlurmCommands)
#include "tst_slurm_commands.moc"
