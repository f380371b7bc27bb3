// Telemetry pushed by node agents into a live backend: dcgm-exporter text mapped onto the
// cluster's GPUs (whole GPUs, MIG instances weighted by their compute slices, the last Xid as a
// fault), shown in snapshots while fresh and dropped when stale, rows the cluster lacks left out
// with a warning, and refused in simulated-live mode. Expected values are worked out from the
// exposition text written here.
#include <QTemporaryDir>
#include <QtTest>

#include "backend_test_util.h"
#include "clusterspec/cluster_spec.h"
#include "service/backend.h"
#include "service/live_telemetry.h"
#include "workload/workload_spec.h"

using namespace tessera;
using namespace tessera::test;

namespace {

// One exposition line: `metric` of GPU `gpu` on `host`, optionally a MIG instance.
std::string row(const std::string& metric, const std::string& host, int gpu, double value,
                const std::string& mig = "", int instance = -1, const std::string& extra = "") {
  std::string labels = "gpu=\"" + std::to_string(gpu) + "\",Hostname=\"" + host + "\"";
  if (!mig.empty())
    labels += ",GPU_I_PROFILE=\"" + mig + "\",GPU_I_ID=\"" + std::to_string(instance) + "\"";
  if (!extra.empty()) labels += "," + extra;
  char v[32];
  std::snprintf(v, sizeof v, "%g", value);
  return metric + "{" + labels + "} " + v + "\n";
}

// pod-a-01 GPU 0 busy, GPU 1 with Xid 79, GPU 2 with an application's Xid 13; inf-01 GPU 0 (MIG)
// with a 3g and a 1g instance; a GPU index pod-a-01 lacks and a host the cluster lacks.
std::string scrape(const std::string& host = "pod-a-01") {
  return "# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).\n"
         "# TYPE DCGM_FI_DEV_GPU_UTIL gauge\n" +
         row("DCGM_FI_DEV_GPU_UTIL", host, 0, 94) + row("DCGM_FI_PROF_SM_ACTIVE", host, 0, 0.71) +
         row("DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", host, 0, 0.4) +
         row("DCGM_FI_DEV_FB_USED", host, 0, 20480) + row("DCGM_FI_DEV_FB_FREE", host, 0, 61440) +
         row("DCGM_FI_DEV_GPU_TEMP", host, 0, 61) + row("DCGM_FI_DEV_GPU_UTIL", host, 1, 0) +
         row("DCGM_FI_DEV_XID_ERRORS", host, 1, 79, "", -1,
             "err_code=\"79\",err_msg=\"GPU has fallen off the bus\"") +
         row("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "inf-01", 0, 0.6, "3g.40gb", 1) +
         row("DCGM_FI_PROF_GR_ENGINE_ACTIVE", "inf-01", 0, 0.2, "1g.10gb", 9) +
         row("DCGM_FI_DEV_FB_USED", "inf-01", 0, 10000, "3g.40gb", 1) +
         row("DCGM_FI_DEV_FB_FREE", "inf-01", 0, 30000, "3g.40gb", 1) +
         row("DCGM_FI_DEV_FB_USED", "inf-01", 0, 5000, "1g.10gb", 9) +
         row("DCGM_FI_DEV_FB_FREE", "inf-01", 0, 5000, "1g.10gb", 9) +
         row("DCGM_FI_DEV_GPU_UTIL", host, 2, 30) +
         row("DCGM_FI_DEV_XID_ERRORS", host, 2, 13, "", -1,
             "err_code=\"13\",err_msg=\"Graphics Engine Exception\"") +
         row("DCGM_FI_DEV_GPU_UTIL", host, 9, 50) + row("DCGM_FI_DEV_GPU_UTIL", "nope", 0, 50);
}

struct Fixture {
  QTemporaryDir dir;
  Seconds now = 1'700'000'000;
  double readingsRefresh = 0;  // BackendConfig's default: every push shows at once
  std::unique_ptr<Backend> open(BackendMode mode) {
    BackendConfig c;
    c.readingsRefreshSeconds = readingsRefresh;
    c.database = dir.filePath(mode == BackendMode::Live ? "live.db" : "sim.db").toStdString();
    c.mode = mode;
    c.cluster = demoCluster();
    c.tenants = *demoWorkload();
    c.runCycles = false;
    c.clock = [this] { return now; };
    auto b = Backend::open(c);
    if (!b) qFatal("open: %s", b.error().str().c_str());
    return std::move(*b);
  }
};

std::variant<TelemetryPush, ApiError> push(Backend& b, const std::string& text,
                                           const std::string& node = "") {
  auto parsed = parseDcgmMetrics(text, "test");
  if (!parsed) qFatal("scrape: %s", parsed.error().str().c_str());
  return await<TelemetryPush>([&](auto r) { b.pushTelemetry(*parsed, node, r); });
}

const GpuView& gpuOf(const ClusterSnapshot& s, const std::string& node, int index) {
  for (const NodeView& n : s.nodes)
    if (n.name == node) return n.gpus.at(static_cast<size_t>(index));
  qFatal("no node %s", node.c_str());
}

ClusterSnapshot snapshotOf(Backend& b) {
  return ok(await<ClusterSnapshot>([&](auto r) { b.snapshot(r); }));
}

void cycle(Backend& b) {
  ok(await<CycleStats>([&](auto r) { b.cycleNow(r); }));
}

bool near(const std::optional<double>& v, double expected) {
  return v && std::abs(*v - expected) < 1e-9;
}

}  // namespace

class TstLiveTelemetry : public QObject {
  Q_OBJECT

 private slots:
  void aScrapeReachesTheSnapshot() {
    Fixture f;
    auto b = f.open(BackendMode::Live);
    const TelemetryPush p = ok(push(*b, scrape()));
    QCOMPARE(p.gpus, 4);                     // pod-a-01/0, /1, /2, inf-01/0
    QCOMPARE(p.warnings.size(), size_t{2});  // in the scrape's order: by host, then GPU
    QVERIFY2(p.warnings[0].find("'nope': no such node") != std::string::npos,
             p.warnings[0].c_str());
    QVERIFY2(p.warnings[1].find("gpu 9 of 'pod-a-01': the node has 8 GPUs") != std::string::npos,
             p.warnings[1].c_str());

    const ClusterSnapshot s = snapshotOf(*b);
    const GpuView& busy = gpuOf(s, "pod-a-01", 0);
    QVERIFY(near(busy.util, 0.94));
    QVERIFY(near(busy.smActive, 0.71));
    QVERIFY(near(busy.tensorActive, 0.4));
    QVERIFY(near(busy.memoryUsed, 20480.0 / 81920));
    QVERIFY(near(busy.temperatureC, 61));
    QVERIFY(!busy.power);  // watts, but no board limit to divide by
    QVERIFY(!busy.fault);
    const GpuView& faulted = gpuOf(s, "pod-a-01", 1);
    QVERIFY(faulted.fault);
    QCOMPARE(faulted.fault->xid, 79);
    QCOMPARE(faulted.fault->message, std::string("GPU has fallen off the bus"));
    QCOMPARE(faulted.fault->since, f.now);
    QVERIFY(!faulted.fault->until);
    // The fault's hold is an event too (actor "telemetry"), naming the GPU, the Xid and why.
    std::vector<std::string> said;
    b->inspect([&](const Engine& e) {
      for (const Event& ev : e.events())
        if (ev.actor == "telemetry") said.push_back(ev.reason.english());
    });
    QCOMPARE(said.size(), size_t{1});
    QCOMPARE(said[0],
             std::string("GPU pod-a-01/1: Xid 79 (GPU has fallen off the bus): held out (fault)"));
    // Xid 13 is the application's error, not the GPU's: no fault (the exporter keeps reporting
    // the last Xid, so it would mark the GPU for good).
    QVERIFY(near(gpuOf(s, "pod-a-01", 2).util, 0.3));
    QVERIFY(!gpuOf(s, "pod-a-01", 2).fault);
    QVERIFY(!gpuOf(s, "pod-a-01", 3).util);  // not in the scrape: no telemetry, not zero
    // MIG: (0.6 x 3 + 0.2 x 1) over the A100's 7 compute slices (the uncovered 3 are idle);
    // memory (10000 + 5000) / (40000 + 10000).
    const GpuView& mig = gpuOf(s, "inf-01", 0);
    QVERIFY(near(mig.util, 2.0 / 7));
    QVERIFY(near(mig.memoryUsed, 0.3));
  }

  // tesserad's default (telemetry.refresh 1s): readings alone leave the published snapshot
  // current for that long, so 1,000 agents' pushes do not send every reader to the engine
  // thread; an Xid's hold is an event and shows at once.
  void readingsReachTheSnapshotWithinTheRefresh() {
    Fixture f;
    f.readingsRefresh = 3;
    auto b = f.open(BackendMode::Live);
    QVERIFY(!gpuOf(snapshotOf(*b), "pod-a-01", 0).util);  // a reader: the view is kept
    ok(push(*b, row("DCGM_FI_DEV_GPU_UTIL", "pod-a-01", 0, 42), "pod-a-01"));
    QVERIFY(!gpuOf(snapshotOf(*b), "pod-a-01", 0).util);  // the published view, still current
    // Older than the refresh, the snapshot is rebuilt for the next reader: no push needed.
    QTRY_VERIFY_WITH_TIMEOUT(near(gpuOf(snapshotOf(*b), "pod-a-01", 0).util, 0.42), 10000);
    ok(push(*b,
            row("DCGM_FI_DEV_XID_ERRORS", "pod-a-01", 1, 79, "", -1,
                "err_code=\"79\",err_msg=\"GPU has fallen off the bus\""),
            "pod-a-01"));
    const ClusterSnapshot s = snapshotOf(*b);
    QVERIFY(gpuOf(s, "pod-a-01", 1).fault);
    bool held = false;
    for (const NodeView& n : s.nodes)
      if (n.name == "pod-a-01") held = !n.holds.empty();
    QVERIFY(held);
  }

  void readingsGoStaleAndAnXidKeepsItsStart() {
    Fixture f;
    auto b = f.open(BackendMode::Live);
    ok(push(*b, scrape()));
    const Seconds first = f.now;
    f.now += 120;
    cycle(*b);
    ok(push(*b, scrape()));
    QCOMPARE(gpuOf(snapshotOf(*b), "pod-a-01", 1).fault->since, first);  // the same Xid
    f.now += LiveTelemetry::kStaleAfter;
    cycle(*b);
    QVERIFY(gpuOf(snapshotOf(*b), "pod-a-01", 0).util);  // just within
    f.now += 1;
    cycle(*b);
    const ClusterSnapshot s = snapshotOf(*b);
    QVERIFY(!gpuOf(s, "pod-a-01", 0).util);
    QVERIFY(!gpuOf(s, "pod-a-01", 1).fault);
  }

  // A scrape with timestamps (saved, then pushed late) counts from when it was sampled: a row
  // two minutes old goes stale three minutes after the push; one older than five minutes is
  // left out with a warning.
  void timestampedRowsCountFromTheirSample() {
    Fixture f;
    auto b = f.open(BackendMode::Live);
    const std::string sampled = " " + std::to_string((f.now - 120) * 1000) + "\n";
    const std::string old = " " + std::to_string((f.now - 600) * 1000) + "\n";
    auto stamped = [](std::string line, const std::string& stamp) {
      line.pop_back();  // the newline
      return line + stamp;
    };
    const TelemetryPush p =
        ok(push(*b, stamped(row("DCGM_FI_DEV_GPU_UTIL", "pod-a-01", 0, 50), sampled) +
                        stamped(row("DCGM_FI_DEV_GPU_UTIL", "pod-a-01", 1, 50), old)));
    QCOMPARE(p.gpus, 1);
    QCOMPARE(p.warnings.size(), size_t{1});
    QVERIFY2(p.warnings[0].find("gpu 1 of 'pod-a-01': sampled 10m ago") != std::string::npos,
             p.warnings[0].c_str());
    QVERIFY(gpuOf(snapshotOf(*b), "pod-a-01", 0).util);
    QVERIFY(!gpuOf(snapshotOf(*b), "pod-a-01", 1).util);
    // A late push of a scrape sampled before the reading GPU 0 has is left out; when that is
    // every row, the push is refused and the newer reading stays.
    const std::string earlier = " " + std::to_string((f.now - 180) * 1000) + "\n";
    const auto late = push(*b, stamped(row("DCGM_FI_DEV_GPU_UTIL", "pod-a-01", 0, 10), earlier));
    QCOMPARE(kindOf(late), ErrorKind::InvalidArgument);
    QVERIFY2(std::get<ApiError>(late).message.find("sampled before the reading it already has") !=
                 std::string::npos,
             std::get<ApiError>(late).message.c_str());
    QVERIFY(near(gpuOf(snapshotOf(*b), "pod-a-01", 0).util, 0.5));
    f.now += LiveTelemetry::kStaleAfter - 120;
    cycle(*b);
    QVERIFY(gpuOf(snapshotOf(*b), "pod-a-01", 0).util);  // just within
    f.now += 1;
    cycle(*b);
    QVERIFY(!gpuOf(snapshotOf(*b), "pod-a-01", 0).util);
  }

  void theAgentNamesItsNode() {
    Fixture f;
    auto b = f.open(BackendMode::Live);
    // The exporter's hostname is not the scheduler's name for the node. With --node the scrape
    // is that one host's: rows of other hosts (inf-01, nope) are left out, not merged in.
    const TelemetryPush p = ok(push(*b, scrape("gpu-node-07"), "pod-a-02"));
    QCOMPARE(p.gpus, 3);
    QCOMPARE(
        std::count_if(p.warnings.begin(), p.warnings.end(),
                      [](const std::string& w) { return w.find("left out") != std::string::npos; }),
        3L);  // inf-01's two MIG instances and nope's GPU
    const ClusterSnapshot s = snapshotOf(*b);
    QVERIFY(gpuOf(s, "pod-a-02", 1).fault);
    QVERIFY(near(gpuOf(s, "pod-a-02", 0).util, 0.94));  // gpu-node-07's GPU 0 alone
    QVERIFY(!gpuOf(s, "pod-a-01", 0).util);
    const auto unnamed = ok(push(*b, scrape("gpu-node-07")));
    QCOMPARE(unnamed.gpus, 1);  // only inf-01's
    QVERIFY(unnamed.warnings.front().find("give the node's name with --node") != std::string::npos);
  }

  void warningsAreCapped() {
    Fixture f;
    auto b = f.open(BackendMode::Live);
    std::string text = row("DCGM_FI_DEV_GPU_UTIL", "pod-a-01", 0, 10);
    for (int i = 0; i < 150; ++i) text += row("DCGM_FI_DEV_GPU_UTIL", "elsewhere", i, 10);
    const TelemetryPush p = ok(push(*b, text));
    QCOMPARE(p.gpus, 1);
    QCOMPARE(p.warnings.size(), LiveTelemetry::kMaxWarnings + 1);
    QCOMPARE(p.warnings.back(), std::string("... and 50 more warnings"));
  }

  // A push that updates nothing fails (a cron job pushing under the wrong host name must not
  // look like one that works), says why, and changes nothing.
  void aScrapeThatUpdatesNothingIsRefused() {
    Fixture f;
    auto b = f.open(BackendMode::Live);
    const auto r = push(*b, row("DCGM_FI_DEV_GPU_UTIL", "elsewhere", 0, 10) +
                                row("DCGM_FI_DEV_GPU_UTIL", "elsewhere", 1, 10));
    QCOMPARE(kindOf(r), ErrorKind::InvalidArgument);
    const std::string& why = std::get<ApiError>(r).message;
    QVERIFY2(why.find("none of the scrape's 2 GPU rows was taken") != std::string::npos &&
                 why.find("gpu 0 of 'elsewhere': no such node in the cluster (give the node's "
                          "name with --node)") != std::string::npos,
             why.c_str());
    // A scrape of another exporter (node_exporter's port) has no GPU rows at all.
    const auto other = push(*b, "# TYPE node_load1 gauge\nnode_load1 0.5\n");
    QCOMPARE(kindOf(other), ErrorKind::InvalidArgument);
    QVERIFY2(std::get<ApiError>(other).message.find("no GPU readings") != std::string::npos,
             std::get<ApiError>(other).message.c_str());
    for (const NodeView& n : snapshotOf(*b).nodes)
      for (const GpuView& g : n.gpus) QVERIFY(!g.util);
  }

  void aSimulatedClusterRefusesPushes() {
    Fixture f;
    auto b = f.open(BackendMode::SimulatedLive);
    const auto r = push(*b, scrape());
    QCOMPARE(kindOf(r), ErrorKind::FailedPrecondition);
    QVERIFY(std::get<ApiError>(r).message.find("simulated-live") != std::string::npos);
  }

  void aJobReadsTheMeanOfItsGpus() {
    Fixture f;
    const auto cluster = demoCluster();
    LiveTelemetry t;
    auto parsed = parseDcgmMetrics(scrape(), "test");
    QVERIFY(parsed);
    QVERIFY(t.ingest(*cluster, *parsed, "", f.now));
    const Node* n = cluster->findNode("pod-a-01");
    JobRecord job;
    job.placement = GangPlacement{};
    job.placement->tasks.push_back({n->id, {n->firstGpu, n->firstGpu + 1}, -1});
    const auto j = t.jobTelemetry(job, f.now);
    QVERIFY(j);
    QVERIFY(std::abs(j->util - (0.94 + 0) / 2) < 1e-9);
    QVERIFY(std::abs(j->sm - 0.71) < 1e-9);  // GPU 1 reports no SM activity: unknown, not 0
    // A job on GPUs without readings is unmeasured, and so is everything once stale.
    job.placement->tasks[0].gpus = {n->firstGpu + 3};
    QVERIFY(!t.jobTelemetry(job, f.now));
    job.placement->tasks[0].gpus = {n->firstGpu};
    QVERIFY(!t.jobTelemetry(job, f.now + LiveTelemetry::kStaleAfter + 1));
  }
};

QTEST_GUILESS_MAIN(TstLiveTelemetry)
#include "tst_live_telemetry.moc"
