// GPU faults and node reasons: the simulated-live demo's fault injector on a real engine (rate,
// what a fault does to jobs and to its node, repair, an operator's say, save and restore), and
// the Backend carrying faults and drain reasons into snapshots and across restarts.
#include <QTemporaryDir>
#include <QtTest>

#include <sqlite3.h>

#include <map>
#include <regex>
#include <set>

#include "backend_test_util.h"
#include "clusterspec/cluster_spec.h"
#include "scheduler/command.h"
#include "service/backend.h"
#include "service/gpu_faults.h"
#include "service/live_telemetry.h"
#include "workload/workload_spec.h"

using namespace tessera;
using namespace tessera::test;

namespace {

// The demo cluster running the demo workload at t = 1000.
Engine busyDemoEngine() {
  auto w = demoWorkload();
  if (!w) qFatal("demo workload: %s", w.error().str().c_str());
  auto e = Engine::create(demoCluster(), *w);
  if (!e) qFatal("engine: %s", e.error().str().c_str());
  if (!e->advanceTo(1000)) qFatal("advance");
  e->runCycle();
  if (e->running().empty()) qFatal("nothing runs");
  return std::move(*e);
}

// Advances the clock in steps until the injector reports a change; fails past `limit`.
void advanceUntilChange(Engine& e, GpuFaultInjector& f, Seconds step, Seconds limit) {
  const Seconds end = e.now() + limit;
  while (e.now() < end) {
    if (!e.advanceTo(e.now() + step)) qFatal("advance");
    if (f.advance(e)) return;
  }
  qFatal("no fault change within %lld s", static_cast<long long>(limit));
}

// The jobs holding GPU g.
std::set<JobId> jobsOn(const Engine& e, GpuId g) {
  std::set<JobId> out;
  for (const JobRecord* j : e.running())
    for (const auto& t : j->placement->tasks)
      for (GpuId held : t.gpus)
        if (held == g) out.insert(j->job.id);
  return out;
}

std::string gpuName(const Engine& e, GpuId g) {
  const Node& n = e.cluster().node(e.cluster().gpu(g).node);
  return n.name + "/" + std::to_string(g - n.firstGpu);
}

struct BackendFixture {
  QTemporaryDir dir;
  Seconds now = 1000;
  BackendConfig config(BackendMode mode) {
    BackendConfig c;
    c.database = dir.filePath("faults.db").toStdString();
    c.mode = mode;
    c.cluster = demoCluster();
    c.tenants = *demoWorkload();
    c.runCycles = false;
    c.clock = [this] { return now; };
    c.gpuFaultsPerDay = 48;  // two an hour
    c.gpuFaultRepair = 3 * 3600;
    return c;
  }
  std::unique_ptr<Backend> open(BackendMode mode) {
    auto b = Backend::open(config(mode));
    if (!b) qFatal("open: %s", b.error().str().c_str());
    return std::move(*b);
  }
  // The simulated-live demo running the demo workload, half an hour at a time (six hours at
  // most) until a fault has drained a node.
  std::unique_ptr<Backend> openUntilAFault();
};

ClusterSnapshot snapshotOf(Backend& b) {
  return ok(await<ClusterSnapshot>([&](auto r) { b.snapshot(r); }));
}

void cycle(Backend& b) {
  ok(await<CycleStats>([&](auto r) { b.cycleNow(r); }));
}

// "node/index Xid N since S until U" for every faulted GPU of a snapshot, plus each node's reason.
std::vector<std::string> faultLines(const ClusterSnapshot& s) {
  std::vector<std::string> out;
  for (const NodeView& n : s.nodes) {
    if (!n.stateReason.empty())
      out.push_back(n.name + " " + n.state + ": " + n.stateReason.english());
    for (const GpuView& g : n.gpus)
      if (g.fault)
        out.push_back(n.name + "/" + std::to_string(g.index) + " Xid " +
                      std::to_string(g.fault->xid) + " " + g.fault->message + " since " +
                      std::to_string(g.fault->since) + " until " +
                      std::to_string(g.fault->until.value_or(-1)));
  }
  return out;
}

std::unique_ptr<Backend> BackendFixture::openUntilAFault() {
  auto b = open(BackendMode::SimulatedLive);
  std::vector<Job> jobs = demoWorkload()->jobs;
  for (Job& j : jobs) j.id = kNoJob;
  ok(await<std::vector<JobId>>([&](auto r) { b->submit(jobs, Caller{}, std::nullopt, r); }));
  const auto drained = [&] {
    const ClusterSnapshot s = snapshotOf(*b);
    return std::any_of(s.nodes.begin(), s.nodes.end(),
                       [](const NodeView& n) { return !n.stateReason.empty(); });
  };
  for (int i = 0; i < 12 && !drained(); ++i) {
    now += 1800;
    cycle(*b);
  }
  return b;
}

// Each node's reason, by name, for the nodes that have one.
std::map<std::string, Text> reasonsOf(const ClusterSnapshot& s) {
  std::map<std::string, Text> out;
  for (const NodeView& n : s.nodes)
    if (!n.stateReason.empty()) out[n.name] = n.stateReason;
  return out;
}

void execSql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) qFatal("open %s", path.c_str());
  char* error = nullptr;
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error) != SQLITE_OK)
    qFatal("%s: %s", sql.c_str(), error ? error : "?");
  sqlite3_close(db);
}

}  // namespace

class TstGpuFaults : public QObject {
  Q_OBJECT

 private slots:
  // The demo injects only Xids a live tesserad would also take as GPU faults (the reset list),
  // each with a message, so the demo never shows a fault the live console would not.
  void injectedXidsAreFaultsALiveServerRecognizes() {
    for (const XidKind& k : injectedXids()) {
      QVERIFY2(xidTakesTheGpuOut(k.xid), std::to_string(k.xid).c_str());
      QVERIFY(*k.message && k.weight > 0);
    }
  }

  void faultsArriveAtTheConfiguredRate() {
    int hoursWithAFault = 0;
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      Engine e = busyDemoEngine();
      GpuFaultInjector f(24, 600, seed);
      // 20 days in hourly steps: 480 faults expected (Poisson, sd 22), each repaired in 10 min:
      // what is still out at an hour's end came in its last ten minutes.
      for (int h = 1; h <= 20 * 24; ++h) {
        QVERIFY(e.advanceTo(1000 + h * 3600));
        f.advance(e);
        for (const ActiveGpuFault& a : f.active()) {
          QVERIFY(a.until > e.now());
          QCOMPARE(e.state().nodeState(e.cluster().gpu(a.gpu).node), NodeState::Draining);
        }
        hoursWithAFault += f.active().empty() ? 0 : 1;
      }
      QVERIFY2(f.injected() > 400 && f.injected() < 560, std::to_string(f.injected()).c_str());
    }
    QVERIFY(hoursWithAFault > 0);  // the check above was exercised
    Engine e = busyDemoEngine();
    QVERIFY(e.advanceTo(1000 + 30 * 86400));
    GpuFaultInjector none(0, 600, 7);
    QVERIFY(!none.advance(e));
    QCOMPARE(none.injected(), uint64_t{0});
  }

  void aFaultRequeuesItsGpusJobsAndDrainsTheNode() {
    Engine e = busyDemoEngine();
    GpuFaultInjector f(240, 3600, 3);
    std::map<GpuId, std::set<JobId>> before;
    for (const Gpu& g : e.cluster().gpus()) before[g.id] = jobsOn(e, g.id);
    // Step by one second so the state just before the fault is what `before` saw.
    advanceUntilChange(e, f, 1, 86400);
    QCOMPARE(f.active().size(), size_t{1});
    const ActiveGpuFault a = f.active().front();
    QVERIFY(!xidMessage(a.xid).empty());
    QCOMPARE(a.since, e.now());
    QCOMPARE(a.until, a.since + 3600);
    const NodeId n = e.cluster().gpu(a.gpu).node;
    QCOMPARE(e.state().nodeState(n), NodeState::Draining);
    QCOMPARE(e.nodeReason(n).english(),
             "Xid " + std::to_string(a.xid) + " on GPU " + gpuName(e, a.gpu));
    QVERIFY(!e.nodeReason(n).isLiteral());  // a sentence the console translates
    QCOMPARE(f.faultOf(a.gpu), &f.active().front());
    // The jobs on the failed GPU are back in the queue, saying why; the node's other jobs run on.
    QVERIFY(jobsOn(e, a.gpu).empty());
    for (JobId j : before[a.gpu]) {
      QCOMPARE(e.job(j)->state, JobState::Pending);
      QVERIFY2(e.job(j)->reason.english().find("Xid " + std::to_string(a.xid)) != std::string::npos,
               e.job(j)->reason.english().c_str());
    }
    const Node& node = e.cluster().node(n);
    for (int i = 0; i < node.gpuCount(); ++i) {
      const GpuId g = node.firstGpu + static_cast<GpuId>(i);
      if (g == a.gpu) continue;
      for (JobId j : before[g])
        if (!before[a.gpu].count(j)) QCOMPARE(e.job(j)->state, JobState::Running);
    }

    // The drain is in the audit log, as an operator's would be.
    auto audited = [&](const std::string& what) {
      return std::any_of(e.events().begin(), e.events().end(), [&](const Event& ev) {
        return ev.kind == EventKind::Command && ev.actor == "tesserad" &&
               ev.reason.english().find(what) != std::string::npos;
      });
    };
    QVERIFY(audited("drain node " + node.name));
    QVERIFY(!audited("undrain node " + node.name));

    // Repaired: the node is back in service and forgets the reason.
    QVERIFY(e.advanceTo(a.until));
    QVERIFY(f.advance(e) || f.active().empty());
    QVERIFY(!f.faultOf(a.gpu));
    QCOMPARE(e.state().nodeState(n), NodeState::Up);
    QVERIFY(e.nodeReason(n).empty());
    QVERIFY(audited("undrain node " + node.name));
  }

  void anOperatorsDecisionOutlastsTheRepair() {
    Engine e = busyDemoEngine();
    GpuFaultInjector f(240, 3600, 3);
    advanceUntilChange(e, f, 60, 86400);
    const ActiveGpuFault a = f.active().front();
    const NodeId n = e.cluster().gpu(a.gpu).node;
    // The operator keeps the node out for a reason of their own: their hold outlasts the
    // fault's. Draining again replaces their reason, as scontrol update reason= does.
    const std::string name = e.cluster().node(n).name;
    QVERIFY(execute(e, Command{cmd::Drain{name, {}}}, "alice", false));
    QVERIFY(!execute(e, Command{cmd::Drain{name, {}}}, "alice", false));  // theirs already
    QVERIFY(execute(e, Command{cmd::Drain{name, literal("psu swap")}}, "alice", false));
    QCOMPARE(e.state().nodeState(n), NodeState::Draining);
    QVERIFY(e.nodeReason(n) == literal("psu swap"));  // the operator's words, as written
    QVERIFY(e.advanceTo(a.until + 1));
    f.advance(e);
    QVERIFY(!f.faultOf(a.gpu));
    QCOMPARE(e.state().nodeState(n), NodeState::Draining);
    QVERIFY(e.nodeReason(n) == literal("psu swap"));  // the operator's words, as written
  }

  // Injection turned off (a restart with the rate at 0): the faults stored before still end.
  void faultsEndWithTheRateAtZero() {
    Engine e = busyDemoEngine();
    GpuFaultInjector f(240, 3600, 3);
    advanceUntilChange(e, f, 60, 86400);
    const ActiveGpuFault a = f.active().front();
    GpuFaultInjector off(0, 3600, 3);
    QVERIFY(off.restore(f.save(e.cluster()), e));
    QVERIFY(e.advanceTo(a.until));
    QVERIFY(off.advance(e));
    QVERIFY(off.active().empty());
    QCOMPARE(e.state().nodeState(e.cluster().gpu(a.gpu).node), NodeState::Up);
    QCOMPARE(off.injected(), f.injected());
  }

  void aRestoredInjectorCarriesOnTheSame() {
    Engine e = busyDemoEngine();
    GpuFaultInjector f(48, 7200, 11);
    advanceUntilChange(e, f, 600, 86400);
    GpuFaultInjector copy(48, 7200, 11);
    QVERIFY(copy.restore(f.save(e.cluster()), e));
    QCOMPARE(copy.save(e.cluster()), f.save(e.cluster()));
    // Both see the same future: run each on its own copy of the engine.
    Engine other = e;
    for (int h = 1; h <= 48; ++h) {
      QVERIFY(e.advanceTo(e.now() + 3600));
      QVERIFY(other.advanceTo(other.now() + 3600));
      f.advance(e);
      copy.advance(other);
      QCOMPARE(copy.save(e.cluster()), f.save(e.cluster()));
    }
    QVERIFY(f.injected() > 1);
  }

  void aBadStoredStateIsRefused() {
    const Engine e = busyDemoEngine();
    GpuFaultInjector f(1, 60, 1);
    for (const char* text :
         {"", "{", "[]", R"({"count": 1})", R"({"count": 1, "faults": [{"gpu": 0}]})",
          R"({"count": 1, "faults": [{"gpu": 99999, "xid": 79, "since": 0, "until": 1,
              "reason": "x"}]})"}) {
      const auto st = f.restore(text, e);
      QVERIFY2(!st, text);
      QVERIFY2(st.error().message.find("stored GPU faults") != std::string::npos,
               st.error().message.c_str());
    }
  }

  void theBackendShowsFaultsAndKeepsThemOverARestart() {
    BackendFixture fx;
    std::vector<std::string> lines;
    {
      auto b = fx.openUntilAFault();
      lines = faultLines(snapshotOf(*b));
      QVERIFY(!lines.empty());
    }
    // Each fault's node drains with a reason that names it, in the same snapshot.
    const std::regex faulted(R"(([\w-]+)/(\d+) Xid (\d+) .* since \d+ until \d+)");
    int faults = 0;
    for (const std::string& l : lines) {
      std::smatch m;
      if (!std::regex_match(l, m, faulted)) continue;
      ++faults;
      const std::string reason =
          m[1].str() + " draining: Xid " + m[3].str() + " on GPU " + m[1].str() + "/" + m[2].str();
      QVERIFY2(std::find(lines.begin(), lines.end(), reason) != lines.end(), reason.c_str());
    }
    QVERIFY(faults > 0);
    // Reopened at the same time: the same faults, not forgotten and not drawn again.
    auto b = fx.open(BackendMode::SimulatedLive);
    QCOMPARE(faultLines(snapshotOf(*b)), lines);
    cycle(*b);
    QCOMPARE(faultLines(snapshotOf(*b)), lines);
    // After the repair time every one of them is back.
    fx.now += 3 * 3600 + 1;
    cycle(*b);
    for (const std::string& l : faultLines(snapshotOf(*b)))
      QVERIFY2(std::find(lines.begin(), lines.end(), l) == lines.end(), l.c_str());
  }

  // A fault's drain reason is a sentence the console translates, before and after a restart; an
  // operator's reason stays their words. The stored English is the record: a sentence beside it
  // that does not decode, or says something else, is read as the English.
  void aFaultsReasonStaysASentenceOverARestart() {
    BackendFixture fx;
    std::map<std::string, Text> before;
    std::string faulted;
    {
      auto b = fx.openUntilAFault();
      before = reasonsOf(snapshotOf(*b));
      QVERIFY(!before.empty());
      faulted = before.begin()->first;
      for (const auto& [node, reason] : before) QVERIFY2(!reason.isLiteral(), node.c_str());
      std::string upNode;
      for (const NodeView& n : snapshotOf(*b).nodes)
        if (n.state == "up") upNode = n.name;
      ok(await<CommandResult>([&](auto r) {
        b->act(Command{cmd::Drain{upNode, literal("psu")}}, false, Caller{"alice"}, std::nullopt,
               r);
      }));
      before = reasonsOf(snapshotOf(*b));
      QVERIFY(before.at(upNode) == literal("psu"));
    }
    QVERIFY(reasonsOf(snapshotOf(*fx.open(BackendMode::SimulatedLive))) == before);

    const std::string english = before.at(faulted).english();
    // The fault's own hold is what a restart reads back (the node's reason beside it is for a
    // reader of the database).
    const std::string path = "$.nodes.\"" + faulted + "\".holds[0].reason_text";
    for (const std::string& stored :
         {std::string("json('{\"t\":\"Xid %1 on GPU %2\",\"a\":[\"1\",\"x\"]}')"),
          std::string("5")}) {
      execSql(fx.config(BackendMode::SimulatedLive).database,
              "UPDATE meta SET value = json_set(value, '" + path + "', " + stored +
                  ") WHERE key = 'global'");
      const auto after = reasonsOf(snapshotOf(*fx.open(BackendMode::SimulatedLive)));
      QVERIFY2(after.at(faulted) == literal(english), stored.c_str());
    }
  }

  void aDrainReasonIsKeptAndForgottenOnUndrain() {
    BackendFixture fx;
    auto reasonOf = [](const ClusterSnapshot& s, const std::string& node) {
      for (const NodeView& n : s.nodes)
        if (n.name == node) return n.state + ": " + n.stateReason.english();
      return std::string("missing");
    };
    {
      auto b = fx.open(BackendMode::Live);
      ok(await<CommandResult>([&](auto r) {
        b->act(Command{cmd::Drain{"pod-a-03", literal("PSU swap, ticket 4711")}}, false,
               Caller{"alice"}, std::nullopt, r);
      }));
      QCOMPARE(reasonOf(snapshotOf(*b), "pod-a-03"),
               std::string("draining: PSU swap, ticket 4711"));
    }
    auto b = fx.open(BackendMode::Live);
    QCOMPARE(reasonOf(snapshotOf(*b), "pod-a-03"), std::string("draining: PSU swap, ticket 4711"));
    // Live mode injects nothing, whatever the rate says.
    fx.now += 86400;
    cycle(*b);
    for (const NodeView& n : snapshotOf(*b).nodes)
      for (const GpuView& g : n.gpus) QVERIFY(!g.fault);
    ok(await<CommandResult>([&](auto r) {
      b->act(Command{cmd::Undrain{"pod-a-03"}}, false, Caller{"alice"}, std::nullopt, r);
    }));
    QCOMPARE(reasonOf(snapshotOf(*b), "pod-a-03"), std::string("up: "));
  }
};

QTEST_GUILESS_MAIN(TstGpuFaults)
#include "tst_gpu_faults.moc"
