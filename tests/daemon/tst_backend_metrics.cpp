// What tesserad exports about its backend, through the real exporter: every family the daemon
// exported before prometheus-cpp is still served with its type and labels (the golden list in
// tests/data/metrics/families-before.txt), the cycle histogram counts each cycle, the gRPC
// latency histogram counts each call by method (a real server, real calls), bucket placement,
// and queue depth and health from a real backend.
#include <QTemporaryDir>
#include <QtTest>

#include <grpcpp/grpcpp.h>
#include <fstream>

#include "../service/backend_test_util.h"
#include "../service/demo_backend.h"
#include "../service/demo_jobs.h"
#include "daemon/backend_metrics.h"
#include "daemon/metrics_exporter.h"
#include "rpc/server.h"
#include "scrape.h"
#include "tessera.grpc.pb.h"

using namespace tessera;
using namespace tessera::test;

namespace {

// A backend on the demo cluster that cycles only when asked, whose cycles feed `metrics` as
// tesserad's do, except that they report a ready Slurm executor (the executor families appear
// only with one, and the demo runs none).
std::unique_ptr<Backend> openBackend(const QString& path, BackendMetrics& metrics) {
  return openDemoBackend(path, 5000, [&metrics](BackendConfig& c) {
    c.onCycle = [&metrics](const CycleReport& r) {
      const ExecutorStatus slurm{"slurm", ExecutorState::Ready, "", 1700000000};
      metrics.recordCycle(CycleReport{r.engine, r.stats, r.telemetry, r.sample, slurm});
    };
  });
}

CycleStats cycle(Backend& b) {
  return ok(await<CycleStats>([&](auto reply) { b.cycleNow(reply); }));
}

// Every demo job (some start, some wait) and one that waits for sure (team ads).
void submitDemoJobs(Backend& b) {
  std::vector<Job> jobs = demoWorkload()->jobs;
  for (Job& j : jobs) j.id = kNoJob;
  jobs.push_back(demoJobThatWaits());
  ok(await<std::vector<JobId>>(
      [&](auto reply) { b.submit(std::move(jobs), Caller{"alice"}, std::nullopt, reply); }));
}

std::string scrape(const BackendMetrics& metrics) {
  auto exporter = MetricsExporter::start("127.0.0.1:0", metrics.collectables());
  if (!exporter) qFatal("%s", exporter.error().str().c_str());
  return httpGet((*exporter)->port(), "/metrics").body;
}

struct GoldenFamily {
  std::string name, type;
  std::set<std::string> labels;
};

std::vector<GoldenFamily> goldenFamilies() {
  std::ifstream in(std::string(TESSERA_TEST_DATA) + "/metrics/families-before.txt");
  std::vector<GoldenFamily> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    GoldenFamily f;
    std::string labels;
    fields >> f.name >> f.type >> labels;
    for (const QString& l : QString::fromStdString(labels).split(',', Qt::SkipEmptyParts))
      f.labels.insert(l.toStdString());
    out.push_back(std::move(f));
  }
  return out;
}

std::string joined(const std::set<std::string>& s) {
  std::string out;
  for (const std::string& x : s) out += (out.empty() ? "" : ",") + x;
  return out;
}

}  // namespace

class TstBackendMetrics : public QObject {
  Q_OBJECT

 private slots:
  // The before/after comparison of issue 27: families may be added, never lost or renamed.
  void everyFamilyExportedBeforeIsStillServed() {
    QTemporaryDir dir;
    BackendMetrics metrics;
    auto backend = openBackend(dir.filePath("m.db"), metrics);
    submitDemoJobs(*backend);
    cycle(*backend);
    metrics.recordStartLatency("slurm", 1.2);
    const Logger log(false, Logger::levelNamed("error"));
    const auto stopHealth = exportHealth(metrics, *backend, log);
    const auto served = familiesOf(scrape(metrics));
    stopHealth();
    const auto golden = goldenFamilies();
    QVERIFY(golden.size() >= 16);
    std::string wrong;
    for (const GoldenFamily& g : golden) {
      const auto it = served.find(g.name);
      if (it == served.end()) {
        wrong += g.name + ": not served\n";
        continue;
      }
      if (it->second.type != g.type) wrong += g.name + ": type " + it->second.type + "\n";
      if (it->second.labels != g.labels)
        wrong += g.name + ": labels {" + joined(it->second.labels) + "}, were {" +
                 joined(g.labels) + "}\n";
    }
    QVERIFY2(wrong.empty(), wrong.c_str());
  }

  void queueDepthRunningJobsAndHealthFollowTheBackend() {
    QTemporaryDir dir;
    BackendMetrics metrics;
    auto backend = openBackend(dir.filePath("m.db"), metrics);
    submitDemoJobs(*backend);
    cycle(*backend);
    const Logger log(false, Logger::levelNamed("error"));
    const auto stopHealth = exportHealth(metrics, *backend, log);
    const std::string text = metrics.render();
    stopHealth();
    const Job waits = demoJobThatWaits();
    QVERIFY2(sampleValue(text, "tessera_queue_depth{class=\"" + waits.priorityClass +
                                   "\",team=\"ads\"}") >= 1,
             text.c_str());
    QVERIFY(sampleValue(text, "tessera_jobs_running") >= 1);
    QVERIFY(sampleValue(text, "tessera_gpus_allocated") >= 1);
    QCOMPARE(sampleValue(text, "tessera_gpus_total"),
             static_cast<double>(demoCluster()->gpus().size()));
    QCOMPARE(sampleValue(text, "tessera_backend_up"), 1.0);
    QCOMPARE(sampleValue(text, "tessera_placements_total"),
             sampleValue(text, "tessera_jobs_running"));
  }

  // The cycle time is a histogram: each cycle is counted, its duration summed.
  void theCycleHistogramCountsEveryCycle() {
    QTemporaryDir dir;
    BackendMetrics metrics;
    auto backend = openBackend(dir.filePath("m.db"), metrics);
    submitDemoJobs(*backend);
    double seconds = 0;
    for (int i = 0; i < 5; ++i) seconds += cycle(*backend).cycleMs / 1000.0;
    const std::string text = metrics.render();
    QCOMPARE(sampleValue(text, "tessera_cycle_seconds_count"), 5.0);
    QVERIFY(qAbs(sampleValue(text, "tessera_cycle_seconds_sum") - seconds) < 1e-9);
    QCOMPARE(sampleValue(text, "tessera_cycle_seconds_bucket{le=\"+Inf\"}"), 5.0);
    for (double bound : kCycleBuckets) {  // every bound served, the old ones (2.5, 5) included
      std::ostringstream le;
      le << bound;
      QVERIFY2(sampleValue(text, "tessera_cycle_seconds_bucket{le=\"" + le.str() + "\"}") >= 0,
               le.str().c_str());
    }
    QCOMPARE(kCycleBuckets.front(), 0.001);
    QVERIFY(std::count(kCycleBuckets.begin(), kCycleBuckets.end(), 2.0) == 1);
  }

  void anObservationLandsInTheFirstBucketAboveIt() {
    BackendMetrics metrics;
    metrics.recordCall("Submit", 0.003);
    metrics.recordCall("Submit", 0.0005);  // on a bound: counted in it (le is "<=")
    const std::string text = metrics.render();
    const auto bucket = [&](const char* le) {
      return sampleValue(
          text,
          std::string(R"(tessera_rpc_duration_seconds_bucket{method="Submit",le=")") + le + "\"}");
    };
    QCOMPARE(bucket("0.0005"), 1.0);
    QCOMPARE(bucket("0.001"), 1.0);
    QCOMPARE(bucket("0.0025"), 1.0);
    QCOMPARE(bucket("0.005"), 2.0);
    QCOMPARE(bucket("+Inf"), 2.0);
    QCOMPARE(sampleValue(text, R"(tessera_rpc_duration_seconds_count{method="Submit"})"), 2.0);
  }

  // Real calls through a real server: each unary call counted once under its method; a watch
  // stream is not a latency.
  void everyGrpcCallIsTimedByMethod() {
    QTemporaryDir dir;
    BackendMetrics metrics;
    auto backend = openBackend(dir.filePath("m.db"), metrics);
    rpc::ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.onCallFinished = [&metrics](const std::string& m, double s) {
      metrics.recordCall(m, s);
    };
    auto server = rpc::ApiServer::start(*backend, options);
    QVERIFY2(server.ok(), server.ok() ? "" : server.error().str().c_str());
    auto stub = v1::Scheduler::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string((*server)->port()), grpc::InsecureChannelCredentials()));
    const auto call = [&](auto method, auto request, auto response) {
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
      return ((*stub).*method)(&ctx, request, &response).ok();
    };
    for (int i = 0; i < 3; ++i)
      QVERIFY(
          call(&v1::Scheduler::Stub::GetHealth, v1::GetHealthRequest{}, v1::GetHealthResponse{}));
    QVERIFY(call(&v1::Scheduler::Stub::WhoAmI, v1::WhoAmIRequest{}, v1::WhoAmIResponse{}));
    {
      grpc::ClientContext ctx;
      ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(300));
      auto watch = stub->WatchEvents(&ctx, v1::WatchEventsRequest{});
      v1::WatchEventsResponse r;
      while (watch->Read(&r)) {
      }
      watch->Finish();
    }
    (*server)->shutdown();
    const std::string text = metrics.render();
    QCOMPARE(sampleValue(text, R"(tessera_rpc_duration_seconds_count{method="GetHealth"})"), 3.0);
    QCOMPARE(sampleValue(text, R"(tessera_rpc_duration_seconds_count{method="WhoAmI"})"), 1.0);
    QVERIFY(text.find("method=\"WatchEvents\"") == std::string::npos);
    QVERIFY(sampleValue(text, R"(tessera_rpc_duration_seconds_sum{method="GetHealth"})") > 0);
  }

  void shortMethodNames() {
    QCOMPARE(rpc::shortMethodName("/tessera.v1.Scheduler/Submit"), std::string("Submit"));
    QCOMPARE(rpc::shortMethodName("Submit"), std::string("Submit"));
  }
};

QTEST_GUILESS_MAIN(TstBackendMetrics)
#include "tst_backend_metrics.moc"
