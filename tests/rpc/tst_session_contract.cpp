// The console's two sessions are interchangeable: the same operator script, written against
// ClusterSession only, gives the same answers on an in-process Backend (the embedded engine)
// and through RemoteSession over gRPC to a Backend behind an ApiServer (a remote tesserad).
#include <QTemporaryDir>

#include <QtTest>
#include <algorithm>
#include <atomic>
#include <cstdio>

#include "../service/backend_test_util.h"
#include "../service/demo_backend.h"
#include "clusterspec/cluster_spec.h"
#include "rpc/client.h"
#include "rpc/convert.h"
#include "rpc/server.h"
#include "service/backend.h"

using namespace tessera;
using namespace tessera::test;

namespace {

std::unique_ptr<Backend> openBackend(const QTemporaryDir& dir, const char* name) {
  return test::openDemoBackend(dir.filePath(name));
}

// A sentence's structure as the console translates it: <template>(arguments) or 'literal'.
std::string structure(const Text& t) {
  if (t.isLiteral()) return "'" + std::string(t.patternText()) + "'";
  std::string out = "<" + std::string(t.patternText()) + ">(";
  for (size_t i = 0; i < t.args().size(); ++i) out += (i ? ", " : "") + structure(t.args()[i]);
  return out + ")";
}

// What an operator does in the console, seen only through the session interface; the
// transcript is what the widgets would show.
std::string script(ClusterSession& s) {
  std::string out;
  auto line = [&out](const std::string& l) { out += l + "\n"; };
  Job big = test::demoJobThatWaits();
  Job small = demoWorkload()->jobs[4];
  small.id = kNoJob;
  const auto ids = std::get<std::vector<JobId>>(await<std::vector<JobId>>([&](auto r) {
    s.submit({big, small}, Caller{}, std::nullopt, r);
  }));
  line("ids " + std::to_string(ids[0]) + " " + std::to_string(ids[1]));
  const auto dry = await<CommandResult>(
      [&](auto r) { s.act(cmd::Hold{ids[0]}, true, Caller{}, std::nullopt, r); });
  line("dry applied " + std::to_string(std::get<CommandResult>(dry).applied));
  const auto held = await<CommandResult>(
      [&](auto r) { s.act(cmd::Hold{ids[0]}, false, Caller{}, std::nullopt, r); });
  line("hold " + std::get<CommandResult>(held).message.english());
  const auto info = std::get<JobInfo>(await<JobInfo>([&](auto r) { s.job(ids[0], r); }));
  line("job " + std::string(jobStateName(info.row.state)) + " held " +
       std::to_string(info.row.job.held) + " team " + info.row.job.team + " class " +
       info.row.job.priorityClass + " tasks " + std::to_string(info.row.job.tasks));
  const auto x =
      std::get<Explanation>(await<Explanation>([&](auto r) { s.explainJob(ids[0], r); }));
  line("explain " + x.dominantReason.english());
  // The sentences keep their templates and arguments across gRPC, so the console can translate
  // a remote tesserad's words as it does the embedded engine's.
  line("hold text " + structure(std::get<CommandResult>(held).message));
  line("reason text " + structure(info.row.reason));
  line("explain text " + structure(x.dominantReason) + " nodes " + structure(x.nodeSummary));
  for (const auto& c : x.counterfactuals) line("suggestion " + structure(c.text));
  for (const Text& h : x.history) line("history " + h.english() + " " + structure(h));
  const auto again = await<CommandResult>(
      [&](auto r) { s.act(cmd::Hold{ids[0]}, false, Caller{}, std::nullopt, r); });
  const ApiError& refused = std::get<ApiError>(again);
  line("refused " + std::string(errorKindName(refused.kind)) + " " + refused.message + " " +
       structure(refused.text));
  // A refused layout names its field, in the sentence too.
  const auto overlap = await<CommandResult>([&](auto r) {
    s.act(cmd::Repartition{"inf-01/0", "7g.80gb@0,1g.10gb@0", false}, true, Caller{}, std::nullopt,
          r);
  });
  const ApiError& badLayout = std::get<ApiError>(overlap);
  line("layout " + std::string(errorKindName(badLayout.kind)) + " " + structure(badLayout.text));
  const auto small2 = std::get<JobInfo>(await<JobInfo>([&](auto r) { s.job(ids[1], r); }));
  line("second reason " + structure(small2.row.reason));
  const auto missing = await<JobInfo>([&](auto r) { s.job(999, r); });
  line("missing " + std::string(errorKindName(std::get<ApiError>(missing).kind)));
  const auto snap =
      std::get<ClusterSnapshot>(await<ClusterSnapshot>([&](auto r) { s.snapshot(r); }));
  line("snapshot nodes " + std::to_string(snap.nodes.size()) + " pending " +
       std::to_string(snap.pendingJobs) + " now " + std::to_string(snap.now));
  const auto page = std::get<JobPage>(await<JobPage>([&](auto r) {
    JobFilter f;
    f.limit = 1;
    s.jobs(f, r);
  }));
  line("page " + std::to_string(page.jobs.size()) + " next " + std::to_string(page.nextAfter));
  return out;
}

// The snapshot's reservations as the Gantt reads them.
std::string reservationsOf(ClusterSession& s) {
  const auto snap =
      std::get<ClusterSnapshot>(await<ClusterSnapshot>([&](auto r) { s.snapshot(r); }));
  std::string out;
  for (const ReservationView& r : snap.reservations) {
    out += r.id + " " + r.kind + " job " + std::to_string(r.job) + " team " + r.team + " " +
           std::to_string(r.start) + "-" + (r.end ? std::to_string(*r.end) : "open") + ":";
    for (const auto& hold : r.nodes) {
      out += " " + hold.node + "[";
      for (int g : hold.gpus) out += std::to_string(g);
      out += "]";
    }
    out += "\n";
  }
  return out;
}

// Every GPU's telemetry, NUMA zone and fault, and every node's reason, in the snapshot, as the
// heatmap's layers read them.
std::string telemetryOf(ClusterSession& s) {
  const auto snap =
      std::get<ClusterSnapshot>(await<ClusterSnapshot>([&](auto r) { s.snapshot(r); }));
  std::string out;
  auto opt = [](const std::optional<double>& v) {
    if (!v) return std::string("-");
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", *v);  // exact: the wire carries doubles
    return std::string(buf);
  };
  for (const NodeView& n : snap.nodes) {
    // The reason's template too: a fault's reason must arrive as a sentence, not as its English.
    out += n.name + " " + n.state + " (" + n.stateReason.english() + ") [" +
           std::string(n.stateReason.patternText()) + "]\n";
    for (const GpuView& g : n.gpus) {
      if (g.fault)
        out += n.name + "[" + std::to_string(g.index) + "] fault Xid " +
               std::to_string(g.fault->xid) + " " + g.fault->message + " " +
               std::to_string(g.fault->since) + "-" + std::to_string(g.fault->until.value_or(-1)) +
               "\n";
      out += n.name + "[" + std::to_string(g.index) + "] util " + opt(g.util) + " sm " +
             opt(g.smActive) + " tensor " + opt(g.tensorActive) + " memory " + opt(g.memoryUsed) +
             " power " + opt(g.power) + " temperature " + opt(g.temperatureC) + " numa " +
             std::to_string(g.numa) + "\n";
    }
  }
  return out;
}

}  // namespace

class TstSessionContract : public QObject {
  Q_OBJECT

 private slots:
  void embeddedAndRemoteAnswerTheSame() {
    QTemporaryDir dir;
    auto embedded = openBackend(dir, "embedded.db");
    const std::string local = script(*embedded);

    auto served = openBackend(dir, "served.db");
    rpc::ServerOptions so;
    so.listen = "127.0.0.1:0";
    auto server = rpc::ApiServer::start(*served, so);
    QVERIFY(server);
    rpc::ClientOptions co;
    co.address = "127.0.0.1:" + std::to_string((*server)->port());
    auto remote = rpc::RemoteSession::connect(co);
    QVERIFY(remote);
    const std::string overGrpc = script(**remote);
    QCOMPARE(QString::fromStdString(overGrpc), QString::fromStdString(local));
    QVERIFY(local.find("held 1") != std::string::npos);
    QVERIFY(local.find("missing not found") != std::string::npos);
    QVERIFY(local.find("now 5000") != std::string::npos);
    QVERIFY2(local.find("hold text <job %1 held>('") != std::string::npos, local.c_str());
    QVERIFY2(
        local.find("reason text <waiting for the next scheduling cycle>()") != std::string::npos,
        local.c_str());
    QVERIFY2(local.find("explain text <held by an operator>()") != std::string::npos,
             local.c_str());
    QVERIFY2(local.find("history t=5000 held: held by local <t=%1 %2: %3>('5000', <held>(), "
                        "<held by %1>('local'))") != std::string::npos,
             local.c_str());
    QVERIFY2(local.find("layout invalid argument <%1: %2>('layout', <%1 failed: %2>(") !=
                 std::string::npos,
             local.c_str());
    QVERIFY2(local.find("refused failed precondition job 1 is already held <job %1 is already "
                        "held>('1')") != std::string::npos,
             local.c_str());
    (*server)->shutdown();
  }

  // Lists sent twice (English lines and their sentences) pair up one by one; a peer that sends
  // no sentences, or a different number of them, is read as its English.
  void listsOfSentencesOverTheWire() {
    CommandResult r;
    r.impact.warnings = {phrase(text::kConflictUntil, 3, "pod-a-04", 9000, "mw1", 7200),
                         literal("an operator's note")};
    r.impact.placementChanges = {{7, "n1[0,1] n2[0]"}, {9, "n3[4]"}};
    v1::ActResponse act = rpc::resultToProto(r);
    QCOMPARE(act.impact().placement_changes(0), std::string("job 7: n1[0,1] n2[0]"));
    const CommandResult back = rpc::resultFromProto(act);
    QVERIFY(back.impact.placementChanges == r.impact.placementChanges);
    act.mutable_impact()->clear_placements();  // an older tesserad: English lines only
    QVERIFY(rpc::resultFromProto(act).impact.placementChanges.empty());
    QCOMPARE(back.impact.warnings.size(), size_t{2});
    QVERIFY(back.impact.warnings[0] == r.impact.warnings[0]);
    QVERIFY(back.impact.warnings[1].isLiteral());

    Explanation x;
    x.job = 3;
    Event e;
    e.time = 60;
    e.kind = EventKind::Requeued;
    e.reason = phrase(text::kRequeuedKept, 5);
    x.history = {historyLine(e), historyLine(e)};
    v1::Explanation wire = rpc::explanationToProto(x);
    QCOMPARE(wire.history(0), std::string("t=60 requeued: requeued with 5 min of work kept"));
    QVERIFY(rpc::explanationFromProto(wire).history[1] == x.history[1]);
    wire.mutable_history_text()->RemoveLast();  // counts differ: trust only the English
    for (const Text& line : rpc::explanationFromProto(wire).history) QVERIFY(line.isLiteral());
    wire.clear_history_text();  // an older tesserad
    const Explanation old = rpc::explanationFromProto(wire);
    QCOMPARE(old.history.size(), size_t{2});
    QCOMPARE(old.history[0].english(), x.history[0].english());
    QVERIFY(old.history[0].isLiteral());

    v1::Event event = rpc::eventToProto(e);
    QVERIFY(rpc::eventFromProto(event).reason == e.reason);
    event.clear_reason_text();
    QVERIFY(rpc::eventFromProto(event).reason.isLiteral());
    QCOMPARE(rpc::eventFromProto(event).reason.english(), e.reason.english());

    // A node's reason: a sentence, an operator's words, none; an older tesserad sends only the
    // English.
    ClusterSnapshot snap;
    snap.nodes.resize(3);
    snap.nodes[0].stateReason = phrase(text::kOutXid, 79, "n1/3");
    snap.nodes[1].stateReason = literal("psu");
    v1::ClusterSnapshot wireSnap = rpc::snapshotToProto(snap);
    QCOMPARE(wireSnap.nodes(0).state_reason(), std::string("Xid 79 on GPU n1/3"));
    QVERIFY(!wireSnap.nodes(2).has_state_reason_text());
    const ClusterSnapshot backSnap = rpc::snapshotFromProto(wireSnap);
    for (size_t i = 0; i < 3; ++i)
      QVERIFY(backSnap.nodes[i].stateReason == snap.nodes[i].stateReason);
    wireSnap.mutable_nodes(0)->clear_state_reason_text();
    const Text older = rpc::snapshotFromProto(wireSnap).nodes[0].stateReason;
    QVERIFY(older.isLiteral());
    QCOMPARE(older.english(), std::string("Xid 79 on GPU n1/3"));
  }

  // A simulated-live backend's synthesized telemetry, temperature included, and its injected GPU
  // faults reach a remote console unchanged; a live one has none on either side.
  void bothSessionsShowTheSameTelemetry() {
    QTemporaryDir dir;
    BackendConfig c;
    c.database = dir.filePath("telemetry.db").toStdString();
    c.mode = BackendMode::SimulatedLive;
    c.cluster = demoCluster();
    c.tenants = *demoWorkload();
    c.runCycles = false;
    Seconds now = 5000;
    c.clock = [&now] { return now; };
    c.gpuFaultsPerDay = 1000;  // one every 86 s or so
    auto served = Backend::open(c);
    QVERIFY(served);
    std::vector<Job> jobs = demoWorkload()->jobs;
    for (Job& j : jobs) j.id = kNoJob;
    ok(await<std::vector<JobId>>(
        [&](auto r) { (*served)->submit(jobs, Caller{}, std::nullopt, r); }));
    ok(await<CycleStats>([&](auto r) { (*served)->cycleNow(r); }));
    now += 600;
    ok(await<CycleStats>([&](auto r) { (*served)->cycleNow(r); }));

    rpc::ServerOptions so;
    so.listen = "127.0.0.1:0";
    auto server = rpc::ApiServer::start(**served, so);
    QVERIFY(server);
    rpc::ClientOptions co;
    co.address = "127.0.0.1:" + std::to_string((*server)->port());
    auto remote = rpc::RemoteSession::connect(co);
    QVERIFY(remote);
    const std::string local = telemetryOf(**served);
    QCOMPARE(QString::fromStdString(telemetryOf(**remote)), QString::fromStdString(local));
    QVERIFY2(local.find("temperature -") == std::string::npos, local.c_str());
    QVERIFY2(local.find("] fault Xid ") != std::string::npos, local.c_str());
    QVERIFY2(local.find(" draining (Xid ") != std::string::npos, local.c_str());
    QVERIFY2(local.find(std::string("[") + text::kOutXid + "]") != std::string::npos,
             local.c_str());
    // Busy GPUs run warmer than the idle ones, which still read the idle temperature.
    const auto snap =
        std::get<ClusterSnapshot>(await<ClusterSnapshot>([&](auto r) { (*remote)->snapshot(r); }));
    double idleMax = 0, busyMax = 0;
    for (const NodeView& n : snap.nodes)
      for (const GpuView& g : n.gpus) {
        // The NUMA zones the demo's hardware declares (resources/demo-cluster.yaml).
        if (n.name == "pod-a-01") QCOMPARE(g.numa, g.index < 4 ? 0 : 1);
        if (n.name == "inf-01") QCOMPARE(g.numa, g.index / 2);
        QVERIFY(g.temperatureC && g.power);
        QVERIFY(*g.temperatureC >= 30 && *g.temperatureC <= 85);
        double& m = g.allocated > 0 ? busyMax : idleMax;
        m = std::max(m, *g.temperatureC);
      }
    QVERIFY(idleMax > 0 && idleMax <= 35);
    QVERIFY(busyMax > idleMax);
    (*server)->shutdown();

    // Live mode: no telemetry, so no temperature, on either side.
    auto live = openBackend(dir, "live.db");
    auto liveServer = rpc::ApiServer::start(*live, so);
    QVERIFY(liveServer);
    co.address = "127.0.0.1:" + std::to_string((*liveServer)->port());
    auto liveRemote = rpc::RemoteSession::connect(co);
    QVERIFY(liveRemote);
    const std::string none = telemetryOf(*live);
    QCOMPARE(QString::fromStdString(telemetryOf(**liveRemote)), QString::fromStdString(none));
    QVERIFY(none.find("temperature -") != std::string::npos);
    (*liveServer)->shutdown();
  }

  // The backfill plan's reservation for a blocked gang and an operator's window reach a remote
  // console as they are.
  void bothSessionsShowTheSameReservations() {
    QTemporaryDir dir;
    auto served = openBackend(dir, "plan.db");
    Job rack = demoWorkload()->jobs[1];  // 16 x 4 GB200 in one NVLink domain of 72
    rack.id = kNoJob;
    rack.estimatedRuntime = 7200;
    ok(await<std::vector<JobId>>([&](auto r) {
      served->submit({rack, rack}, Caller{}, std::nullopt, r);
    }));
    ok(await<CycleStats>([&](auto r) { served->cycleNow(r); }));
    cmd::CreateReservation window{"fw-upgrade", {"pod-a-01"}, 8600, 9000, "search"};
    ok(await<CommandResult>(
        [&](auto r) { served->act(window, false, Caller{}, std::nullopt, r); }));

    rpc::ServerOptions so;
    so.listen = "127.0.0.1:0";
    auto server = rpc::ApiServer::start(*served, so);
    QVERIFY(server);
    rpc::ClientOptions co;
    co.address = "127.0.0.1:" + std::to_string((*server)->port());
    auto remote = rpc::RemoteSession::connect(co);
    QVERIFY(remote);
    const std::string local = reservationsOf(*served);
    QCOMPARE(QString::fromStdString(reservationsOf(**remote)), QString::fromStdString(local));
    QVERIFY2(local.find("bf-2 backfill job 2 team llm 12200-19400:") == 0, local.c_str());
    QVERIFY2(local.find("fw-upgrade team job 0 team search 8600-9000: pod-a-01[01234567]") !=
                 std::string::npos,
             local.c_str());
    (*server)->shutdown();
  }

  // Both sessions push "something changed" soon after a commit, and stop when cancelled.
  void bothSessionsNotifyChanges() {
    QTemporaryDir dir;
    auto served = openBackend(dir, "notify.db");
    rpc::ServerOptions so;
    so.listen = "127.0.0.1:0";
    auto server = rpc::ApiServer::start(*served, so);
    QVERIFY(server);
    rpc::ClientOptions co;
    co.address = "127.0.0.1:" + std::to_string((*server)->port());
    auto remote = rpc::RemoteSession::connect(co);
    QVERIFY(remote);
    for (ClusterSession* s : {static_cast<ClusterSession*>(served.get()),
                              static_cast<ClusterSession*>(remote->get())}) {
      std::atomic<int> changes{0};
      auto cancel = s->watchChanges([&changes] { ++changes; });
      QTest::qWait(200);  // the remote watch connects
      Job j = demoWorkload()->jobs[4];
      j.id = kNoJob;
      ok(await<std::vector<JobId>>([&](auto r) { s->submit({j}, Caller{}, std::nullopt, r); }));
      QTRY_VERIFY_WITH_TIMEOUT(changes.load() > 0, 5000);
      cancel();
      const int after = changes.load();
      ok(await<std::vector<JobId>>([&](auto r) { s->submit({j}, Caller{}, std::nullopt, r); }));
      QTest::qWait(200);
      QCOMPARE(changes.load(), after);
    }
    (*server)->shutdown();
  }
};

QTEST_GUILESS_MAIN(TstSessionContract)
#include "tst_session_contract.moc"
