// An MPS request survives every way a job travels: the workload file (with located errors for
// bad values), the stored job (SQLite's JSON, so a restart keeps it) and the API's JobSpec (so
// ctl and the console's remote session keep it), and the API refuses bad values by field.
#include <QtTest>

#include <string>

#include "rpc/convert.h"
#include "store/job_codec.h"
#include "workload/workload_spec.h"

using namespace tessera;

namespace {

Job mpsJob() {
  Job j;
  j.id = 7;
  j.name = "embed";
  j.team = "search";
  j.user = "alice";
  j.priorityClass = "experiment";
  j.priority = 500;
  j.perTask.kind = GpuRequest::Kind::Mps;
  j.perTask.mpsThreads = 25;
  j.perTask.vramMiB = 8192;
  return j;
}

std::string workloadError(const std::string& job) {
  const std::string text = "version: 1\nteams: [{name: t}]\njobs:\n  - " + job + "\n";
  auto w = loadWorkload(text, "w.yaml");
  return w.ok() ? "" : w.error().str();
}

}  // namespace

class TstRpcMpsRequest : public QObject {
  Q_OBJECT

  // What came back is mpsJob()'s request and user.
  static void sameMpsRequest(const Expected<Job>& back) {
    QVERIFY2(back.ok(), back.ok() ? "" : back.error().str().c_str());
    QCOMPARE(int(back->perTask.kind), int(GpuRequest::Kind::Mps));
    QCOMPARE(back->perTask.mpsThreads, 25);
    QCOMPARE(back->perTask.vramMiB, int64_t{8192});
    QCOMPARE(back->user, std::string("alice"));
  }

 private slots:
  void storedJobKeepsTheMpsRequest() {
    const Job j = mpsJob();
    sameMpsRequest(jobFromJson(jobToJson(j)));
  }

  void apiJobSpecKeepsTheMpsRequest() {
    const auto spec = rpc::jobSpecToProto(mpsJob());
    QCOMPARE(spec.per_task().mps_threads(), 25u);
    sameMpsRequest(rpc::jobFromProto(spec, "job", defaultPriorityClasses()));
  }

  void apiRefusesBadMpsValuesByField() {
    auto spec = rpc::jobSpecToProto(mpsJob());
    spec.mutable_per_task()->set_mps_threads(101);
    auto over = rpc::jobFromProto(spec, "job", defaultPriorityClasses());
    QVERIFY(!over.ok());
    QVERIFY(over.error().str().find("job.per_task.mps_threads") != std::string::npos);
    spec.mutable_per_task()->set_mps_threads(10);
    spec.mutable_per_task()->set_vram_mib(0);
    auto noLimit = rpc::jobFromProto(spec, "job", defaultPriorityClasses());
    QVERIFY(!noLimit.ok());
    QVERIFY(noLimit.error().str().find("job.per_task.vram_mib") != std::string::npos);
  }

  void workloadFileReadsMps() {
    auto w = loadWorkload(
        "version: 1\nteams: [{name: t}]\njobs:\n"
        "  - {id: 1, team: t, user: bob, priority: experiment, mps: {threads: 30, memory: 6GiB}}\n"
        "  - {id: 2, team: t, priority: experiment, mps: {threads: 5, memory_mib: 700}}\n",
        "w.yaml");
    QVERIFY2(w.ok(), w.ok() ? "" : w.error().str().c_str());
    QCOMPARE(w->jobs[0].perTask.mpsThreads, 30);
    QCOMPARE(w->jobs[0].perTask.vramMiB, int64_t{6144});
    QCOMPARE(w->jobs[0].user, std::string("bob"));
    QCOMPARE(w->jobs[1].perTask.vramMiB, int64_t{700});
    QVERIFY(w->jobs[1].user.empty());
  }

  // Each error names the file, line and field.
  void workloadFileErrorsAreLocated() {
    const std::string out =
        workloadError("{id: 1, team: t, priority: experiment, mps: {threads: 0, memory: 1GiB}}");
    QVERIFY2(out.find("w.yaml:4") != std::string::npos, out.c_str());
    QVERIFY2(out.find("mps.threads") != std::string::npos, out.c_str());
    QVERIFY(workloadError("{id: 1, team: t, priority: experiment, mps: {threads: 10}}")
                .find("pinned device memory limit") != std::string::npos);
    QVERIFY(workloadError("{id: 1, team: t, priority: experiment, mps: {threads: 10, memory: 1GiB, "
                          "memory_mib: 5}}")
                .find("exactly one") != std::string::npos);
    QVERIFY(workloadError("{id: 1, team: t, priority: experiment, mps: {threads: 10, memory: 2TB}}")
                .find("is not a size") != std::string::npos);
    QVERIFY(workloadError(
                "{id: 1, team: t, priority: experiment, gpus: 1, mps: {threads: 10, memory: 1G}}")
                .find("give at most one of gpus:, mig:, fraction:, mps:") != std::string::npos);
  }

  void memorySizes() {
    QCOMPARE(parseMemoryMiB("512MiB").value_or(-1), int64_t{512});
    QCOMPARE(parseMemoryMiB("512M").value_or(-1), int64_t{512});
    QCOMPARE(parseMemoryMiB("8GiB").value_or(-1), int64_t{8192});
    QCOMPARE(parseMemoryMiB(" 8G ").value_or(-1), int64_t{8192});
    QVERIFY(!parseMemoryMiB("8"));
    QVERIFY(!parseMemoryMiB("0GiB"));
    QVERIFY(!parseMemoryMiB("-1G"));
    QVERIFY(!parseMemoryMiB("8GB"));
    QVERIFY(!parseMemoryMiB("20000GiB"));
  }
};

QTEST_APPLESS_MAIN(TstRpcMpsRequest)
#include "tst_rpc_mps_request.moc"
