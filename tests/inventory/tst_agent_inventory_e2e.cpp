// `tessera agent`'s inventory against a real tesserad process (live mode, a two-GPU H100 node
// in the cluster spec, NVML served by the fake libnvidia-ml.so.1 from catalog-made fixtures the
// test rewrites while the agent runs): the inventory arrives; a GPU that vanishes holds its node
// with an event and comes back lifted; a MIG layout changed on the node replaces the engine's and
// the job on a vanished instance is requeued and named; a node outside the model waits for an
// admin's `tessera ctl node admit` (or inventory.auto_admit) and then joins the running engine,
// a job runs on it and both survive a tesserad restart; after tesserad restarts the agent reports
// again; a repartition planned before a restart is still held and applied after it; and bad
// reports get INVALID_ARGUMENT / FAILED_PRECONDITION / PERMISSION_DENIED with the
// field named.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "inventory/nvml_fixture.h"
#include "inventory/tessera_run.h"
#include "rpc/auth.h"
#include "rpc/daemon_process.h"
#include "rpc/snapshot_gpu.h"
#include "topology/gpu_catalog.h"

using namespace tessera;
using tessera::test::AgentProcess;
using tessera::test::Daemon;
using tessera::test::Run;
using tessera::test::runTessera;
using tessera::test::snapshotGpu;

namespace {

constexpr const char* kSpec = R"(version: 1
name: inventory-test
node_templates:
  h100x2: {gpu_model: H100-SXM5-80GB, gpus: 2}
fabric:
  spines: [spine-1]
  leafs:
    - {name: leaf-1, spine: spine-1}
nodes:
  - name: gpu-a
    template: h100x2
    leaf: leaf-1
    gpus:
      "0": {mig: "3g.40gb@0,3g.40gb@4"}
      "1": {mig: "3g.40gb@0,3g.40gb@4"}
)";

const GpuModel& model(const char* id) {
  return *GpuCatalog::builtin().find(id);
}

const GpuModel& h100() {
  return model("H100-SXM5-80GB");
}

// The fake NVML serves `gpus` GPUs of `m` from `file`, each with `layout`, to agents started from
// now on; an agent reads the file at each probe.
void serveModel(const QTemporaryDir& dir, const QString& file, const GpuModel& m, int gpus,
                const std::string& layout, const std::string& extra = {}) {
  const std::string path = dir.filePath(file).toStdString();
  auto parsed = parseMigLayout(m, layout);
  if (!parsed) qFatal("layout: %s", parsed.error().str().c_str());
  std::ofstream(path) << test::fixtureFromCatalog(m, *parsed, gpus) << extra;
  qputenv("TESSERA_FAKE_NVML", QByteArray::fromStdString(path));
}

// The model's node gpu-a: `gpus` H100s, each with `layout`; `extra` fixture lines ("lost 1").
void serveNode(const QTemporaryDir& dir, int gpus, const std::string& layout,
               const std::string& extra = {}) {
  serveModel(dir, "node.txt", h100(), gpus, layout, extra);
}

// A node the model lacks: two A100 80GB, each one 7g.80gb instance (no H100 of gpu-a can hold
// an A100 job, so such a job can only run there).
void serveNewNode(const QTemporaryDir& dir) {
  serveModel(dir, "new.txt", model("A100-SXM4-80GB"), 2, "7g.80gb@0");
}

std::map<std::string, std::string> writeFiles(const QTemporaryDir& dir) {
  std::ofstream(dir.filePath("cluster.yaml").toStdString()) << kSpec;
  std::map<std::string, std::string> tokens;
  std::ofstream file(dir.filePath("tokens.yaml").toStdString());
  file << "tokens:\n";
  for (const char* role : {"agent", "viewer", "admin"}) {
    tokens[role] = *generateToken();
    file << "  - {name: node-" << role << ", role: " << role
         << ", sha256: " << sha256Hex(tokens[role]) << "}\n";
    std::ofstream(dir.filePath(QString(role) + ".token").toStdString()) << tokens[role] << "\n";
  }
  return tokens;
}

QStringList daemonArgs(const QTemporaryDir& dir) {
  return {"--mode",    "live",
          "--db",      dir.filePath("inv.db"),
          "--tokens",  dir.filePath("tokens.yaml"),
          "--cluster", dir.filePath("cluster.yaml")};
}

// What most cases start from: the files written, the fake NVML serving two H100s split into
// 3g.40gb halves, and tesserad serving (false, its log in d.log(), when it does not).
bool startOnMigNode(const QTemporaryDir& dir, Daemon& d,
                    std::map<std::string, std::string>& tokens) {
  tokens = writeFiles(dir);
  serveNode(dir, 2, "3g.40gb@0,3g.40gb@4");
  return d.start(daemonArgs(dir));
}

// A unary call that must succeed (a failure ends the test with its message).
template <class Response, class Request, class Method>
Response must(rpc::RemoteSession& c, Method method, const Request& request) {
  grpc::ClientContext ctx;
  c.prepare(ctx);
  Response response;
  const grpc::Status st = (c.stub().*method)(&ctx, request, &response);
  if (!st.ok()) qFatal("call failed: %s", st.error_message().c_str());
  return response;
}

v1::NodeInventorySummary nodeSummary(rpc::RemoteSession& c, const std::string& node) {
  const auto list = must<v1::ListNodeInventoryResponse>(c, &v1::Scheduler::Stub::ListNodeInventory,
                                                        v1::ListNodeInventoryRequest{});
  for (const auto& n : list.nodes())
    if (n.node() == node) return n;
  return {};
}

// Whether tesserad has the node's inventory as a node of its model within 15 s.
bool reportedKnown(rpc::RemoteSession& c, const std::string& node = "gpu-a") {
  return QTest::qWaitFor([&] { return nodeSummary(c, node).admission() == "known"; }, 15000);
}

grpc::Status snapshotStatus(rpc::RemoteSession& c) {
  grpc::ClientContext ctx;
  c.prepare(ctx);
  v1::ClusterSnapshot snapshot;
  return c.stub().GetSnapshot(&ctx, v1::GetSnapshotRequest{}, &snapshot);
}

v1::SnapshotNode snapshotNode(rpc::RemoteSession& c, const std::string& node) {
  const auto snapshot =
      must<v1::ClusterSnapshot>(c, &v1::Scheduler::Stub::GetSnapshot, v1::GetSnapshotRequest{});
  for (const auto& n : snapshot.nodes())
    if (n.name() == node) return n;
  return {};
}

bool hasHold(const v1::SnapshotNode& n, const std::string& owner, const std::string& gpu) {
  for (const auto& h : n.holds())
    if (h.owner() == owner && h.gpu() == gpu) return true;
  return false;
}

// The hold the inventory puts on a GPU its node lacks or reports faulty.
bool hasInventoryHold(const v1::SnapshotNode& n, const std::string& gpu) {
  return hasHold(n, "inventory", gpu);
}

grpc::Status repartition(rpc::RemoteSession& c, const std::string& gpu, const std::string& layout) {
  grpc::ClientContext ctx;
  c.prepare(ctx);
  v1::ActRequest request;
  request.mutable_repartition()->set_gpu(gpu);
  request.mutable_repartition()->set_layout(layout);
  v1::ActResponse response;
  return c.stub().Act(&ctx, request, &response);
}

QString fileText(const QString& path) {
  QFile f(path);
  return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// Every event's reason so far, one per line (the stream is read until it goes quiet).
QString eventReasons(rpc::RemoteSession& c) {
  grpc::ClientContext ctx;
  c.prepare(ctx);
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(1500));
  auto reader = c.stub().WatchEvents(&ctx, v1::WatchEventsRequest{});
  v1::WatchEventsResponse batch;
  QString all;
  while (reader->Read(&batch))
    for (const auto& e : batch.events()) all += QString::fromStdString(e.reason()) + "\n";
  return all;
}

v1::JobSpec migJob() {
  v1::JobSpec job;
  job.set_team("vision");
  job.mutable_per_task()->set_mig_profile("3g.40gb");
  return job;
}

v1::JobSpec a100Job() {
  v1::JobSpec job;
  job.set_team("vision");
  job.mutable_per_task()->set_mig_profile("7g.80gb");
  job.add_gpu_models("A100-SXM4-80GB");
  return job;
}

grpc::Status submit(rpc::RemoteSession& c, const v1::JobSpec& job, uint64_t* id = nullptr) {
  grpc::ClientContext ctx;
  c.prepare(ctx);
  v1::SubmitRequest request;
  *request.mutable_job() = job;
  v1::SubmitResponse response;
  const grpc::Status st = c.stub().Submit(&ctx, request, &response);
  if (id) *id = response.id();
  return st;
}

// Whether a job holds an instance of the node's GPU 0 or 1 (busy instances are marked *).
bool busyOn(rpc::RemoteSession& c, const std::string& node) {
  return snapshotGpu(c, node, 0).mig_layout().find('*') != std::string::npos ||
         snapshotGpu(c, node, 1).mig_layout().find('*') != std::string::npos;
}

grpc::Status admit(rpc::RemoteSession& c, const std::string& node) {
  grpc::ClientContext ctx;
  c.prepare(ctx);
  v1::AdmitNodeRequest request;
  request.set_node(node);
  v1::AdmitNodeResponse response;
  return c.stub().AdmitNode(&ctx, request, &response);
}

grpc::Status report(rpc::RemoteSession& c, const v1::ReportInventoryRequest& r) {
  grpc::ClientContext ctx;
  c.prepare(ctx);
  v1::ReportInventoryResponse response;
  return c.stub().ReportInventory(&ctx, r, &response);
}

// The agent reports the node, then the admin admits it: the admission's status (the report's
// when that fails).
grpc::Status reportAndAdmit(rpc::RemoteSession& agent, rpc::RemoteSession& admin,
                            const v1::ReportInventoryRequest& r) {
  const grpc::Status reported = report(agent, r);
  return reported.ok() ? admit(admin, r.node()) : reported;
}

v1::ReportInventoryRequest goodReport(const std::string& host, const std::string& node = "gpu-a") {
  v1::ReportInventoryRequest r;
  r.set_node(node);
  r.set_hostname(host);
  for (uint32_t i = 0; i < 2; ++i) {
    auto* g = r.add_gpus();
    g->set_index(i);
    g->set_model("H100-SXM5-80GB");
    g->set_uuid("GPU-" + std::to_string(i));
    g->set_mig_enabled(true);
    g->set_mig_layout("3g.40gb@0,3g.40gb@4");
  }
  return r;
}

}  // namespace

class TestAgentInventoryE2e : public QObject {
  Q_OBJECT

 private slots:
  void gpuVanishesAndComesBack() {
    QTemporaryDir dir;
    Daemon d;
    std::map<std::string, std::string> tokens;
    QVERIFY2(startOnMigNode(dir, d, tokens), qPrintable(d.log()));
    auto viewer = d.client(tokens["viewer"]);
    AgentProcess agent(d.address(), dir.filePath("agent.token"), "gpu-a", {"--dcgm-url", ""});
    QVERIFY(reportedKnown(*viewer));
    QCOMPARE(nodeSummary(*viewer, "gpu-a").gpus(), 2u);
    QCOMPARE(snapshotNode(*viewer, "gpu-a").state(), std::string("up"));

    serveNode(dir, 1, "3g.40gb@0,3g.40gb@4");  // GPU 1 is gone from the node
    QTRY_VERIFY_WITH_TIMEOUT(hasInventoryHold(snapshotNode(*viewer, "gpu-a"), "gpu-a/1"), 15000);
    QCOMPARE(snapshotNode(*viewer, "gpu-a").state(), std::string("draining"));
    QCOMPARE(nodeSummary(*viewer, "gpu-a").missing_gpus_size(), 1);
    QCOMPARE(nodeSummary(*viewer, "gpu-a").missing_gpus(0), std::string("gpu-a/1"));
    QVERIFY2(eventReasons(*viewer).contains(
                 "GPU gpu-a/1: missing from the node's inventory: held out (fault)"),
             qPrintable(eventReasons(*viewer)));

    serveNode(dir, 2, "3g.40gb@0,3g.40gb@4");  // back
    QTRY_COMPARE_WITH_TIMEOUT(snapshotNode(*viewer, "gpu-a").state(), std::string("up"), 15000);
    QVERIFY(!hasInventoryHold(snapshotNode(*viewer, "gpu-a"), "gpu-a/1"));
    QCOMPARE(nodeSummary(*viewer, "gpu-a").missing_gpus_size(), 0);
    QVERIFY(
        eventReasons(*viewer).contains("GPU gpu-a/1: back in the node's inventory: hold lifted"));

    // GPU 1 falls off the bus: NVML still counts it but answers GPU_IS_LOST. The agent reports
    // it with its fault, and it is held out until it answers again.
    serveNode(dir, 2, "3g.40gb@0,3g.40gb@4", "lost 1\n");
    QTRY_VERIFY_WITH_TIMEOUT(hasInventoryHold(snapshotNode(*viewer, "gpu-a"), "gpu-a/1"), 15000);
    QVERIFY2(eventReasons(*viewer).contains(
                 "GPU gpu-a/1: fallen off the bus (NVML nvmlDeviceGetName (GPU 1) failed: GPU is "
                 "lost (15)): held out (fault)"),
             qPrintable(eventReasons(*viewer)));
    serveNode(dir, 2, "3g.40gb@0,3g.40gb@4");
    QTRY_COMPARE_WITH_TIMEOUT(snapshotNode(*viewer, "gpu-a").state(), std::string("up"), 15000);
    QCOMPARE(agent.terminate(), 0);
    QVERIFY2(agent.log().contains("tesserad took the inventory: node gpu-a known"),
             qPrintable(agent.log()));
    QVERIFY2(d.log().contains("msg=inventory"), qPrintable(d.log()));
  }

  // Faults NVML reports between samples: an Xid 48 event on GPU 1 (the agent's event set) and a
  // double-bit ECC count on GPU 0 each hold their GPU (gpu-fault) with an event naming the GPU
  // and the cause.
  void nvmlFaultEventsHoldTheGpus() {
    QTemporaryDir dir;
    Daemon d;
    std::map<std::string, std::string> tokens;
    QVERIFY2(startOnMigNode(dir, d, tokens), qPrintable(d.log()));
    auto viewer = d.client(tokens["viewer"]);
    AgentProcess agent(d.address(), dir.filePath("agent.token"), "gpu-a", {"--dcgm-url", ""});
    QVERIFY(reportedKnown(*viewer));
    QTRY_VERIFY_WITH_TIMEOUT(agent.log().contains("telemetry from nvml"), 10000);
    QCOMPARE(snapshotNode(*viewer, "gpu-a").state(), std::string("up"));
    serveNode(dir, 2, "3g.40gb@0,3g.40gb@4", "event 1 xid 48\ngpu 0 ecc_dbe 3\n");
    QTRY_VERIFY_WITH_TIMEOUT(hasHold(snapshotNode(*viewer, "gpu-a"), "gpu-fault", "gpu-a/1") &&
                                 hasHold(snapshotNode(*viewer, "gpu-a"), "gpu-fault", "gpu-a/0"),
                             15000);
    const QString events = eventReasons(*viewer);
    QVERIFY2(events.contains("GPU gpu-a/1: Xid 48 (Double Bit ECC Error): held out (fault)"),
             qPrintable(events));
    QVERIFY2(events.contains("GPU gpu-a/0: Xid 48 (Double Bit ECC Error (NVML: 3 uncorrected "
                             "volatile ECC errors)): held out (fault)"),
             qPrintable(events));
    QVERIFY2(agent.log().contains("NVML event: GPU 1: Xid 48"), qPrintable(agent.log()));
    QCOMPARE(agent.terminate(), 0);
  }

  void migLayoutChangedOnTheNodeIsFollowed() {
    QTemporaryDir dir;
    Daemon d;
    std::map<std::string, std::string> tokens;
    QVERIFY2(startOnMigNode(dir, d, tokens), qPrintable(d.log()));
    auto admin = d.client(tokens["admin"]);
    // A job on one of the 3g.40gb instances: the change below takes its instance away.
    grpc::ClientContext ctx;
    admin->prepare(ctx);
    v1::SubmitRequest submit;
    *submit.mutable_job() = migJob();
    v1::SubmitResponse submitted;
    const grpc::Status st = admin->stub().Submit(&ctx, submit, &submitted);
    QVERIFY2(st.ok(), st.error_message().c_str());
    AgentProcess agent(d.address(), dir.filePath("agent.token"), "gpu-a", {"--dcgm-url", ""});
    QTRY_VERIFY_WITH_TIMEOUT(
        snapshotGpu(*admin, "gpu-a", 0).mig_layout().find('*') != std::string::npos ||
            snapshotGpu(*admin, "gpu-a", 1).mig_layout().find('*') != std::string::npos,
        15000);
    const int busy =
        snapshotGpu(*admin, "gpu-a", 0).mig_layout().find('*') != std::string::npos ? 0 : 1;

    serveNode(dir, 2, "7g.80gb@0");
    // Both GPUs follow the node in one report; only the busy one names a job. (The snapshot's
    // layout is not checked: with no executor the engine may repartition a free GPU again for
    // the requeued job.)
    const QString change =
        "gpu-a/%1: MIG layout changed on the node: 3g.40gb@0,3g.40gb@4 -> "
        "7g.80gb@0";
    QTRY_VERIFY_WITH_TIMEOUT(
        eventReasons(*admin).contains(change.arg(busy) + QString(" (instances in use gone: job "
                                                                 "%1 on 3g.40gb@")
                                                             .arg(submitted.id())),
        15000);
    QVERIFY(eventReasons(*admin).contains(change.arg(1 - busy) + "\n"));
    QTRY_VERIFY_WITH_TIMEOUT(
        agent.log().contains(
            QString("warning: gpu-a/%1: job %2 on 3g.40gb@").arg(busy).arg(submitted.id())),
        10000);
    QVERIFY(agent.log().contains("the instance is gone from the node; requeued"));
    QCOMPARE(agent.terminate(), 0);
  }

  // An operator's repartition is applied on the node by its agent: tesserad holds the node
  // (mig-reconfigure) and answers the agent's pushes with the layout; a dry-run agent only logs
  // the nvidia-smi sequence, an applying one runs it (the fake nvidia-smi records it and edits
  // the fake NVML's fixture), NVML reads the layout back, and the report lifts the hold.
  void repartitionIsAppliedByTheAgent() {
    QTemporaryDir dir;
    Daemon d;
    std::map<std::string, std::string> tokens;
    QVERIFY2(startOnMigNode(dir, d, tokens), qPrintable(d.log()));
    auto admin = d.client(tokens["admin"]);
    const QString smiLog = dir.filePath("smi.log");
    qputenv("FAKE_SMI_LOG", smiLog.toUtf8());
    const QStringList flags = {"--dcgm-url", "", "--nvidia-smi", FAKE_NVIDIA_SMI};
    {
      AgentProcess agent(d.address(), dir.filePath("agent.token"), "gpu-a",
                         QStringList(flags) << "--mig-apply"
                                            << "dry-run");
      QVERIFY(reportedKnown(*admin));
      const grpc::Status st = repartition(*admin, "gpu-a/0", "7g.80gb@0");
      QVERIFY2(st.ok(), st.error_message().c_str());
      const QString dry = QString(
                              "MIG apply on GPU 0 (7g.80gb@0), dry run; it would run:\n"
                              "  %1 mig -i 0 -gi 1 -dci\n  %1 mig -i 0 -gi 1 -dgi\n"
                              "  %1 mig -i 0 -gi 2 -dci\n  %1 mig -i 0 -gi 2 -dgi\n"
                              "  %1 mig -i 0 -cgi 0:0 -C\n")
                              .arg(FAKE_NVIDIA_SMI);
      QTRY_VERIFY2_WITH_TIMEOUT(agent.log().contains(dry), qPrintable(agent.log()), 15000);
      const v1::SnapshotNode held = snapshotNode(*admin, "gpu-a");
      QVERIFY(hasHold(held, "mig-reconfigure", "gpu-a/0"));
      QCOMPARE(held.state(), std::string("draining"));
      QVERIFY2(
          eventReasons(*admin).contains("gpu-a/0: MIG layout 7g.80gb@0 planned, the node has "
                                        "3g.40gb@0,3g.40gb@4: held until its agent applies it"),
          qPrintable(eventReasons(*admin)));
      QCOMPARE(agent.terminate(), 0);
      QVERIFY(!QFile::exists(smiLog));  // nothing ran
      QCOMPARE(snapshotGpu(*admin, "gpu-a", 0).mig_layout(), std::string("7g.80gb@0"));
    }
    // The applying agent's first report shows the old layout, as the last one did: not a change
    // on the node, so the plan stands (the engine does not follow the node back).
    AgentProcess agent(d.address(), dir.filePath("agent.token"), "gpu-a", flags);
    QTRY_COMPARE_WITH_TIMEOUT(snapshotNode(*admin, "gpu-a").state(), std::string("up"), 15000);
    QCOMPARE(fileText(smiLog), QString("mig -i 0 -gi 1 -dci\nmig -i 0 -gi 1 -dgi\n"
                                       "mig -i 0 -gi 2 -dci\nmig -i 0 -gi 2 -dgi\n"
                                       "mig -i 0 -cgi 0:0 -C\n"));
    QVERIFY(!hasHold(snapshotNode(*admin, "gpu-a"), "mig-reconfigure", "gpu-a/0"));
    QCOMPARE(snapshotGpu(*admin, "gpu-a", 0).mig_layout(), std::string("7g.80gb@0"));
    QCOMPARE(snapshotGpu(*admin, "gpu-a", 1).mig_layout(), std::string("3g.40gb@0,3g.40gb@4"));
    QVERIFY2(eventReasons(*admin).contains("gpu-a/0: MIG layout 7g.80gb@0 is on the node: hold "
                                           "lifted"),
             qPrintable(eventReasons(*admin)));
    QTRY_VERIFY2_WITH_TIMEOUT(
        agent.log().contains("MIG apply on GPU 0 (7g.80gb@0): NVML reads back 7g.80gb@0 (as "
                             "planned)"),
        qPrintable(agent.log()), 10000);
    QVERIFY(agent.log().contains("Successfully created GPU instance ID  0 on GPU  0"));
    QCOMPARE(agent.terminate(), 0);
  }

  // tesserad is killed after it planned a repartition and before the agent applied it. The
  // restarted tesserad still holds the node and answers the agent with the planned layout (a
  // dry-run agent logs it); the node's old layout, reported again, is no news (no warning of a
  // half-done apply), and the applying agent's read-back lifts the hold.
  void aPendingRepartitionSurvivesARestart() {
    QTemporaryDir dir;
    Daemon d;
    std::map<std::string, std::string> tokens;
    QVERIFY2(startOnMigNode(dir, d, tokens), qPrintable(d.log()));
    const QString smiLog = dir.filePath("smi.log");
    qputenv("FAKE_SMI_LOG", smiLog.toUtf8());
    const QStringList flags = {"--dcgm-url", "", "--nvidia-smi", FAKE_NVIDIA_SMI};
    {
      AgentProcess agent(d.address(), dir.filePath("agent.token"), "gpu-a",
                         QStringList(flags) << "--mig-apply"
                                            << "off");
      QVERIFY(reportedKnown(*d.client(tokens["viewer"])));
      QCOMPARE(agent.terminate(), 0);
    }
    const grpc::Status st = repartition(*d.client(tokens["admin"]), "gpu-a/0", "7g.80gb@0");
    QVERIFY2(st.ok(), st.error_message().c_str());
    d.kill();
    Daemon back;
    QVERIFY2(back.start(daemonArgs(dir)), qPrintable(back.log()));
    auto admin = back.client(tokens["admin"]);
    {
      AgentProcess agent(back.address(), dir.filePath("agent.token"), "gpu-a",
                         QStringList(flags) << "--mig-apply"
                                            << "dry-run");
      QTRY_VERIFY2_WITH_TIMEOUT(agent.log().contains("MIG apply on GPU 0 (7g.80gb@0), dry run"),
                                qPrintable(agent.log()), 15000);
      QVERIFY(hasHold(snapshotNode(*admin, "gpu-a"), "mig-reconfigure", "gpu-a/0"));
      QCOMPARE(snapshotGpu(*admin, "gpu-a", 0).mig_layout(), std::string("7g.80gb@0"));
      QVERIFY2(!agent.log().contains("not the planned"), qPrintable(agent.log()));
      QCOMPARE(agent.terminate(), 0);
    }
    AgentProcess agent(back.address(), dir.filePath("agent.token"), "gpu-a", flags);
    QTRY_COMPARE_WITH_TIMEOUT(snapshotNode(*admin, "gpu-a").state(), std::string("up"), 15000);
    QVERIFY(fileText(smiLog).endsWith("mig -i 0 -cgi 0:0 -C\n"));
    QCOMPARE(snapshotGpu(*admin, "gpu-a", 0).mig_layout(), std::string("7g.80gb@0"));
    QCOMPARE(agent.terminate(), 0);
    QCOMPARE(back.terminate(), 0);
  }

  // A node the model lacks waits for an admin; admitted, it joins the running engine under the
  // leaf and pool its agent names, a job that fits only there starts on it, and after tesserad
  // restarts the node (and the job on it) is still there.
  void newNodeJoinsWhenAdmitted() {
    QTemporaryDir dir;
    Daemon d;
    std::map<std::string, std::string> tokens;
    QVERIFY2(startOnMigNode(dir, d, tokens), qPrintable(d.log()));
    auto viewer = d.client(tokens["viewer"]);
    auto admin = d.client(tokens["admin"]);
    serveNewNode(dir);
    AgentProcess agent(d.address(), dir.filePath("agent.token"), "gpu-new",
                       {"--dcgm-url", "", "--leaf", "leaf-1", "--pool", "a100"});
    QTRY_COMPARE_WITH_TIMEOUT(nodeSummary(*viewer, "gpu-new").admission(),
                              std::string("pending-admission"), 15000);
    QCOMPARE(snapshotNode(*viewer, "gpu-new").name(), std::string());  // not schedulable
    QVERIFY(eventReasons(*viewer).contains("node gpu-new"));
    // No GPU of the model can run an A100 job yet: refused at submit.
    QCOMPARE(submit(*admin, a100Job()).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    const QStringList ctl{"ctl", "--server", QString::fromStdString(d.address()), "--token-file"};
    const Run listed = runTessera(QStringList(ctl) << dir.filePath("viewer.token") << "node"
                                                   << "list");
    QCOMPARE(listed.code, 0);
    QVERIFY2(listed.out.contains("gpu-new") && listed.out.contains("pending-admission"),
             listed.out.constData());
    // A viewer may not admit; an admin may, once.
    const Run denied = runTessera(QStringList(ctl) << dir.filePath("viewer.token") << "node"
                                                   << "admit"
                                                   << "gpu-new");
    QVERIFY(denied.code != 0);
    const Run admitted = runTessera(QStringList(ctl) << dir.filePath("admin.token") << "node"
                                                     << "admit"
                                                     << "gpu-new");
    QVERIFY2(admitted.code == 0, admitted.err.constData());
    QVERIFY2(admitted.out.contains("node gpu-new joins the cluster model (2 x A100-SXM4-80GB"),
             admitted.out.constData());
    QCOMPARE(snapshotNode(*viewer, "gpu-new").leaf(), std::string("leaf-1"));
    QCOMPARE(snapshotNode(*viewer, "gpu-new").pool(), std::string("a100"));
    QCOMPARE(snapshotNode(*viewer, "gpu-new").gpus_size(), 2);
    QCOMPARE(snapshotGpu(*viewer, "gpu-new", 1).mig_layout(), std::string("7g.80gb@0"));
    QCOMPARE(nodeSummary(*viewer, "gpu-new").admission(), std::string("known"));
    QVERIFY2(eventReasons(*viewer).contains(
                 "admit node gpu-new: applied: node gpu-new joins the cluster model"),
             qPrintable(eventReasons(*viewer)));
    const Run again = runTessera(QStringList(ctl) << dir.filePath("admin.token") << "node"
                                                  << "admit"
                                                  << "gpu-new");
    QVERIFY(again.code != 0);
    QVERIFY2(again.err.contains("node 'gpu-new' is already in the cluster model"),
             again.err.constData());
    const Run unknown = runTessera(QStringList(ctl) << dir.filePath("admin.token") << "node"
                                                    << "admit"
                                                    << "nobody");
    QVERIFY2(unknown.err.contains("no node 'nobody' has reported its inventory"),
             unknown.err.constData());

    uint64_t job = 0;
    const grpc::Status st = submit(*admin, a100Job(), &job);
    QVERIFY2(st.ok(), st.error_message().c_str());
    QTRY_VERIFY_WITH_TIMEOUT(busyOn(*admin, "gpu-new"), 15000);
    QCOMPARE(agent.terminate(), 0);

    const int port = d.port();
    // The old connections go with the old process (a new channel could share their subchannel
    // to the same address and see it closed).
    viewer.reset();
    admin.reset();
    d.kill();
    Daemon back;
    QVERIFY2(back.start(daemonArgs(dir) << "--listen" << QString("127.0.0.1:%1").arg(port)),
             qPrintable(back.log()));
    auto after = back.client(tokens["viewer"]);
    QTRY_VERIFY_WITH_TIMEOUT(snapshotStatus(*after).ok(), 10000);
    QCOMPARE(snapshotNode(*after, "gpu-new").leaf(), std::string("leaf-1"));
    QCOMPARE(snapshotNode(*after, "gpu-new").gpus_size(), 2);
    QVERIFY(busyOn(*after, "gpu-new"));  // the job runs where it ran
    QCOMPARE(back.terminate(), 0);
  }

  // inventory.auto_admit: the node joins at its first report, under a leaf of its own when its
  // agent names none.
  void autoAdmittedNodeJoins() {
    QTemporaryDir dir;
    auto tokens = writeFiles(dir);
    const std::string config = dir.filePath("tesserad.yaml").toStdString();
    std::ofstream(config) << "inventory:\n  auto_admit: true\n";
    Daemon d;
    QVERIFY2(d.start(daemonArgs(dir) << "--config" << QString::fromStdString(config)),
             qPrintable(d.log()));
    serveNewNode(dir);
    AgentProcess agent(d.address(), dir.filePath("agent.token"), "gpu-new", {"--dcgm-url", ""});
    auto viewer = d.client(tokens["viewer"]);
    QTRY_COMPARE_WITH_TIMEOUT(snapshotNode(*viewer, "gpu-new").leaf(), std::string("leaf-gpu-new"),
                              15000);
    QVERIFY2(eventReasons(*viewer).contains("node gpu-new joins the cluster model (2 x "
                                            "A100-SXM4-80GB"),
             qPrintable(eventReasons(*viewer)));
    QVERIFY(eventReasons(*viewer).contains("admitted (inventory.auto_admit)"));
    QVERIFY(submit(*d.client(tokens["admin"]), a100Job()).ok());
    QTRY_VERIFY_WITH_TIMEOUT(busyOn(*viewer, "gpu-new"), 15000);
    QCOMPARE(agent.terminate(), 0);
    QVERIFY2(agent.log().contains("tesserad took the inventory: node gpu-new admitted"),
             qPrintable(agent.log()));
    QCOMPARE(d.terminate(), 0);
  }

  void reportsAgainAfterTesseradRestarts() {
    QTemporaryDir dir;
    Daemon d;
    std::map<std::string, std::string> tokens;
    QVERIFY2(startOnMigNode(dir, d, tokens), qPrintable(d.log()));
    const int port = d.port();
    AgentProcess agent(d.address(), dir.filePath("agent.token"), "gpu-a", {"--dcgm-url", ""});
    QTRY_COMPARE_WITH_TIMEOUT(nodeSummary(*d.client(tokens["viewer"]), "gpu-a").gpus(), 2u, 15000);
    d.kill();
    QTRY_VERIFY_WITH_TIMEOUT(agent.log().contains("unreachable"), 15000);
    Daemon back;
    QVERIFY2(back.start(daemonArgs(dir) << "--listen" << QString("127.0.0.1:%1").arg(port)),
             qPrintable(back.log()));
    // The new process knows no reports: only a resent inventory can put the node in its list.
    QTRY_COMPARE_WITH_TIMEOUT(nodeSummary(*back.client(tokens["viewer"]), "gpu-a").gpus(), 2u,
                              20000);
    QCOMPARE(agent.log().count("tessera agent: inventory: 2 GPUs"), 1);  // probed once
    QCOMPARE(agent.terminate(), 0);
    QCOMPARE(back.terminate(), 0);
  }

  void badReportsAreRefused() {
    QTemporaryDir dir;
    auto tokens = writeFiles(dir);
    Daemon d;
    QVERIFY2(d.start(daemonArgs(dir)), qPrintable(d.log()));
    auto agent = d.client(tokens["agent"]);
    QVERIFY(report(*agent, goodReport("host-1")).ok());

    auto noUuid = goodReport("host-1");
    noUuid.mutable_gpus(1)->clear_uuid();
    grpc::Status st = report(*agent, noUuid);
    QCOMPARE(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    QVERIFY2(st.error_message().starts_with("gpus[1].uuid: '' is empty or repeated"),
             st.error_message().c_str());

    auto unknownModel = goodReport("host-1");
    unknownModel.mutable_gpus(0)->set_model("Z100-SXM9");
    st = report(*agent, unknownModel);
    QCOMPARE(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    QVERIFY2(st.error_message().starts_with("gpus[0].model: unknown GPU model 'Z100-SXM9'"),
             st.error_message().c_str());

    auto badLayout = goodReport("host-1");
    badLayout.mutable_gpus(0)->set_mig_layout("3g.40gb@1");
    st = report(*agent, badLayout);
    QCOMPARE(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    QVERIFY2(st.error_message().starts_with("gpus[0].mig_layout: "), st.error_message().c_str());

    auto layoutWithoutMig = goodReport("host-1");
    layoutWithoutMig.mutable_gpus(0)->set_mig_enabled(false);
    st = report(*agent, layoutWithoutMig);
    QCOMPARE(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    QVERIFY2(st.error_message() == "gpus[0].mig_layout: given while mig_enabled is false",
             st.error_message().c_str());

    st = report(*agent, goodReport("host-2"));  // another machine claims gpu-a
    QCOMPARE(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    QVERIFY2(st.error_message().starts_with(
                 "node: 'gpu-a' is already reported by host 'host-1'; this report comes from "
                 "host 'host-2'"),
             st.error_message().c_str());

    auto noName = goodReport("host-1");
    noName.clear_node();
    st = report(*agent, noName);
    QCOMPARE(st.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    QVERIFY2(st.error_message().starts_with("node: empty"), st.error_message().c_str());

    st = report(*d.client(tokens["viewer"]), goodReport("host-1"));
    QCOMPARE(st.error_code(), grpc::StatusCode::PERMISSION_DENIED);

    // Reports that cannot make a node of the model (GPUs of two models, one faulted, a leaf
    // that is a spine) are taken, but their admission is refused with the field first.
    auto admin = d.client(tokens["admin"]);
    auto mixed = goodReport("host-3", "gpu-mixed");
    mixed.mutable_gpus(1)->set_model("A100-SXM4-80GB");
    mixed.mutable_gpus(1)->set_mig_layout("7g.80gb@0");
    st = reportAndAdmit(*agent, *admin, mixed);
    QCOMPARE(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    QVERIFY2(st.error_message().starts_with("gpus[1].model: A100-SXM4-80GB beside H100-SXM5-80GB"),
             st.error_message().c_str());
    auto faulted = goodReport("host-4", "gpu-faulted");
    faulted.mutable_gpus(0)->set_fault("GPU is lost");
    st = reportAndAdmit(*agent, *admin, faulted);
    QCOMPARE(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    QVERIFY2(st.error_message().starts_with("gpus[0].fault: GPU 0 is faulted (GPU is lost)"),
             st.error_message().c_str());
    QCOMPARE(nodeSummary(*d.client(tokens["viewer"]), "gpu-faulted").admission(),
             std::string("pending-admission"));
    auto spineLeaf = goodReport("host-5", "gpu-spine");
    spineLeaf.set_leaf("spine-1");
    st = reportAndAdmit(*agent, *admin, spineLeaf);
    QCOMPARE(st.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
    QVERIFY2(st.error_message().starts_with("leaf: 'spine-1' is a spine of the fabric"),
             st.error_message().c_str());
    // None of the refused reports changed anything: the node is up with its two GPUs.
    auto viewer = d.client(tokens["viewer"]);
    QCOMPARE(snapshotNode(*viewer, "gpu-a").state(), std::string("up"));
    QCOMPARE(nodeSummary(*viewer, "gpu-a").hostname(), std::string("host-1"));
    QCOMPARE(d.terminate(), 0);
  }
};

QTEST_GUILESS_MAIN(TestAgentInventoryE2e)
#include "tst_agent_inventory_e2e.moc"
