// tesserad's metrics endpoint and the collectors that need no engine: MetricsExporter over
// prometheus-cpp (what it serves, its address rules, bind errors naming the address and the
// reason, stop), CycleGauges (families before the first cycle, series replaced per cycle,
// concurrent scrapes) and the process_* families (the /proc parsers and live values).
#include <QtTest>

#include <fcntl.h>

#include <prometheus/counter.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>
#include <atomic>
#include <chrono>
#include <ctime>
#include <thread>

#include "daemon/cycle_gauges.h"
#include "daemon/metrics_exporter.h"
#include "daemon/process_metrics.h"
#include "scrape.h"

using namespace tessera;
using namespace tessera::test;

namespace {

// A registry with one counter at 3, as something to serve.
std::shared_ptr<prometheus::Registry> registryWithCounter() {
  auto r = std::make_shared<prometheus::Registry>();
  prometheus::BuildCounter()
      .Name("test_things_total")
      .Help("Things.")
      .Register(*r)
      .Add({})
      .Increment(3);
  return r;
}

std::unique_ptr<MetricsExporter> startOn(const std::string& address,
                                         const std::shared_ptr<prometheus::Collectable>& c) {
  auto e = MetricsExporter::start(address, {c});
  if (!e.ok()) qFatal("%s", e.error().str().c_str());
  return std::move(e).value();
}

std::string render(const prometheus::Collectable& c) {
  return prometheus::TextSerializer().Serialize(c.Collect());
}

CycleFigures someFigures() {
  CycleFigures f;
  f.queueDepth[{"vision", "batch"}] = 2;
  f.queueDepth[{"nlp", "prod"}] = 1;
  f.jobsRunning = 3;
  f.gpusTotal = 16;
  f.gpusAllocated = 4;
  f.executor = CycleFigures::Executor{"slurm", true, 1700000000};
  f.migFragmentation = 0.25;
  f.fgdFragmentation = 2;
  return f;
}

// A /proc/<pid>/stat line whose command name holds a space and a ')'; utime 250, stime 150,
// starttime 1000 (ticks), vsize 4096000, rss 300 (pages).
const char* kStat =
    "4242 (tess) erad) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 150 0 0 20 0 9 0 1000 4096000 "
    "300 18446744073709551615 1 1 0 0 0 0 0 4096 0 0 0 0 17 1 0 0 0 0 0";

}  // namespace

class TstPrometheus : public QObject {
  Q_OBJECT

 private slots:
  // ---- the exporter ----

  void servesTheCollectablesOnMetrics() {
    auto registry = registryWithCounter();
    auto exporter = startOn("127.0.0.1:0", registry);
    QVERIFY(exporter->port() > 0);
    const HttpReply reply = httpGet(exporter->port(), "/metrics");
    QVERIFY2(reply.statusLine().find(" 200 ") != std::string::npos, reply.head.c_str());
    QVERIFY2(reply.head.find("Content-Type: text/plain") != std::string::npos, reply.head.c_str());
    QVERIFY2(reply.body.find("# TYPE test_things_total counter\ntest_things_total 3\n") !=
                 std::string::npos,
             reply.body.c_str());
  }

  void otherPathsAreNotFound() {
    auto registry = registryWithCounter();
    auto exporter = startOn("127.0.0.1:0", registry);
    const HttpReply reply = httpGet(exporter->port(), "/other");
    QVERIFY2(reply.statusLine().find(" 404") != std::string::npos, reply.head.c_str());
    QVERIFY(reply.body.find("test_things_total") == std::string::npos);
  }

  void aSilentClientDoesNotBlockAScrape() {
    auto registry = registryWithCounter();
    auto exporter = startOn("127.0.0.1:0", registry);
    const int silent = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(exporter->port()));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    QCOMPARE(::connect(silent, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
    QVERIFY(httpGet(exporter->port(), "/metrics").body.find("test_things_total 3") !=
            std::string::npos);
    ::close(silent);
  }

  void stopFreesThePortAndIsIdempotent() {
    auto registry = registryWithCounter();
    auto first = startOn("127.0.0.1:0", registry);
    const std::string address = "127.0.0.1:" + std::to_string(first->port());
    first->stop();
    first->stop();
    QVERIFY(httpGet(first->port(), "/metrics").body.empty());
    auto second = MetricsExporter::start(address, {registry});
    QVERIFY2(second.ok(), second.ok() ? "" : second.error().str().c_str());
  }

  // civetweb alone needs up to 2 s to notice a stop (its accept loop polls in 2 s quanta);
  // tesserad's SIGTERM must not wait for that. Generous bound: the knock makes it milliseconds.
  void stopsPromptlyAfterAScrape() {
    auto registry = registryWithCounter();
    auto exporter = startOn("127.0.0.1:0", registry);
    QVERIFY(!httpGet(exporter->port(), "/metrics").body.empty());
    const auto start = std::chrono::steady_clock::now();
    exporter->stop();
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    QVERIFY2(seconds < 1.5, std::to_string(seconds).c_str());
  }

  void aCollectableGoneIsSkipped() {
    auto kept = registryWithCounter();
    auto gone = std::make_shared<prometheus::Registry>();
    prometheus::BuildCounter().Name("test_gone_total").Help("Gone.").Register(*gone).Add({});
    auto e = MetricsExporter::start("127.0.0.1:0", {kept, gone});
    QVERIFY(e.ok());
    gone.reset();
    const HttpReply reply = httpGet((*e)->port(), "/metrics");
    QVERIFY(reply.body.find("test_things_total 3") != std::string::npos);
    QVERIFY(reply.body.find("test_gone_total") == std::string::npos);
  }

  void reportsBindErrorsWithTheAddressAndReason() {
    auto registry = registryWithCounter();
    auto first = startOn("127.0.0.1:0", registry);
    const std::string address = "127.0.0.1:" + std::to_string(first->port());
    auto second = MetricsExporter::start(address, {registry});
    QVERIFY(!second.ok());
    QVERIFY2(second.error().message.find("cannot listen on " + address +
                                         ": Address already in use") != std::string::npos,
             second.error().str().c_str());
  }

  void refusesBadAddresses_data() {
    QTest::addColumn<QString>("address");
    QTest::addColumn<QString>("why");
    QTest::newRow("no port") << "127.0.0.1"
                             << "expected HOST:PORT";
    QTest::newRow("empty port") << "127.0.0.1:"
                                << "the port must be a number";
    QTest::newRow("port too large") << "127.0.0.1:65536"
                                    << "the port must be a number";
    QTest::newRow("port not a number") << "127.0.0.1:http"
                                       << "the port must be a number";
    QTest::newRow("host name") << "example.com:9464"
                               << "is not an IPv4 address";
    // TEST-NET-1: not ours, so the bind itself fails
    QTest::newRow("not a local address") << "192.0.2.1:0"
                                         << "Cannot assign requested address";
  }

  void refusesBadAddresses() {
    QFETCH(QString, address);
    QFETCH(QString, why);
    auto exporter = MetricsExporter::start(address.toStdString(), {registryWithCounter()});
    QVERIFY(!exporter.ok());
    const std::string message = exporter.error().message;
    QVERIFY2(message.find(address.toStdString()) != std::string::npos, message.c_str());
    QVERIFY2(message.find(why.toStdString()) != std::string::npos, message.c_str());
  }

  void acceptsLocalhostAndAnyAddress() {
    auto registry = registryWithCounter();
    for (const char* address : {"localhost:0", "0.0.0.0:0"}) {
      auto exporter = MetricsExporter::start(address, {registry});
      QVERIFY2(exporter.ok(), exporter.ok() ? "" : exporter.error().str().c_str());
      QVERIFY(httpGet((*exporter)->port(), "/metrics").body.find("test_things_total 3") !=
              std::string::npos);
    }
  }

  // ---- the per-cycle gauges ----

  void beforeTheFirstCycleTheFamiliesHaveNoSeries() {
    const CycleGauges gauges;
    const auto families = familiesOf(render(gauges));
    QCOMPARE(families.size(), size_t{9});
    for (const auto& [name, f] : families) {
      QCOMPARE(f.type, std::string("gauge"));
      QVERIFY2(f.series == 0, name.c_str());
    }
  }

  void servesThePublishedFigures() {
    CycleGauges gauges;
    gauges.publish(someFigures());
    const std::string text = render(gauges);
    QCOMPARE(sampleValue(text, R"(tessera_queue_depth{class="batch",team="vision"})"), 2.0);
    QCOMPARE(sampleValue(text, R"(tessera_queue_depth{class="prod",team="nlp"})"), 1.0);
    QCOMPARE(sampleValue(text, "tessera_jobs_running"), 3.0);
    QCOMPARE(sampleValue(text, "tessera_gpus_total"), 16.0);
    QCOMPARE(sampleValue(text, "tessera_gpus_allocated"), 4.0);
    QCOMPARE(sampleValue(text, "tessera_allocation_ratio"), 0.25);
    QCOMPARE(sampleValue(text, R"(tessera_executor_up{executor="slurm"})"), 1.0);
    QCOMPARE(sampleValue(text, R"(tessera_executor_last_sync_timestamp_seconds{executor="slurm"})"),
             1700000000.0);
    QCOMPARE(sampleValue(text, "tessera_fragmentation_mig"), 0.25);
    QCOMPARE(sampleValue(text, "tessera_fragmentation_fgd_gpus"), 2.0);
  }

  // Teams come and go: a team with nothing pending must not linger at its last value.
  void aNewCycleReplacesTheSeries() {
    CycleGauges gauges;
    gauges.publish(someFigures());
    CycleFigures next = someFigures();
    next.queueDepth.erase({"nlp", "prod"});
    next.executor.reset();
    next.gpusTotal = 0;
    gauges.publish(next);
    const std::string text = render(gauges);
    QCOMPARE(sampleValue(text, R"(tessera_queue_depth{class="prod",team="nlp"})"), -1.0);
    QCOMPARE(sampleValue(text, R"(tessera_queue_depth{class="batch",team="vision"})"), 2.0);
    QCOMPARE(familiesOf(text)["tessera_executor_up"].series, size_t{0});
    QCOMPARE(sampleValue(text, "tessera_allocation_ratio"), 0.0);  // no GPUs: 0, not NaN
  }

  void escapesLabelValues() {
    CycleGauges gauges;
    CycleFigures f;
    f.queueDepth[{"vi\"s\\ion\n", "batch"}] = 1;
    gauges.publish(f);
    // The text as served: quote, backslash and line break escaped.
    const std::string series = "tessera_queue_depth{class=\"batch\",team=\"vi\\\"s\\\\ion\\n\"}";
    QCOMPARE(sampleValue(render(gauges), series), 1.0);
  }

  // Scrapes on the exporter's threads while the engine thread publishes: each sees one whole
  // snapshot (a torn read would show running and total GPUs disagreeing).
  void scrapesDuringPublishesSeeWholeSnapshots() {
    CycleGauges gauges;
    std::atomic<bool> done{false};
    std::thread engine([&] {
      for (int i = 1; i <= 2000; ++i) {
        CycleFigures f;
        f.jobsRunning = i;
        f.gpusTotal = i;
        f.gpusAllocated = i;
        gauges.publish(f);
      }
      done = true;
    });
    int scrapes = 0;
    bool whole = true;
    while (!done || scrapes == 0) {
      const std::string text = render(gauges);
      ++scrapes;
      // Running and total come from the same snapshot: they never disagree.
      whole = whole &&
              sampleValue(text, "tessera_jobs_running") == sampleValue(text, "tessera_gpus_total");
    }
    engine.join();
    QVERIFY(whole);
    QCOMPARE(sampleValue(render(gauges), "tessera_jobs_running"), 2000.0);
  }

  // ---- the process_* families ----

  void parsesProcStat() {
    const auto s = parseProcStat(kStat, 100, 4096);
    QVERIFY(s.has_value());
    QCOMPARE(s->cpuSeconds, 4.0);
    QCOMPARE(s->startSeconds, 10.0);
    QCOMPARE(s->virtualBytes, 4096000.0);
    QCOMPARE(s->residentBytes, 300.0 * 4096);
  }

  void refusesWhatIsNotProcStat() {
    QVERIFY(!parseProcStat("", 100, 4096));
    QVERIFY(!parseProcStat("4242 (tesserad) S 1 2 3", 100, 4096));  // too few fields
    std::string bad = kStat;
    bad.replace(bad.find(" 250 "), 5, " x50 ");
    QVERIFY(!parseProcStat(bad, 100, 4096));
    QVERIFY(!parseProcStat(kStat, 0, 4096));
  }

  void parsesBootTimeAndFdLimit() {
    QCOMPARE(parseBootTime("cpu  1 2 3\nintr 5\nbtime 1764300000\nprocesses 9\n").value_or(-1),
             1764300000.0);
    QVERIFY(!parseBootTime("cpu 1 2 3\n"));
    const char* limits =
        "Limit                     Soft Limit           Hard Limit           Units     \n"
        "Max cpu time              unlimited            unlimited            seconds   \n"
        "Max open files            1024                 524288               files     \n";
    QCOMPARE(parseMaxOpenFiles(limits).value_or(-1), 1024.0);
    QVERIFY(
        !parseMaxOpenFiles("Max open files            unlimited            unlimited   files\n"));
  }

  void servesThisProcessFigures() {
    const ProcessCollector process;
    const std::string before = render(process);
    const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    const std::string after = render(process);
    ::close(fd);
    QCOMPARE(sampleValue(after, "process_open_fds"), sampleValue(before, "process_open_fds") + 1);
    QVERIFY(sampleValue(before, "process_resident_memory_bytes") > 1024 * 1024);
    QVERIFY(sampleValue(before, "process_virtual_memory_bytes") >
            sampleValue(before, "process_resident_memory_bytes"));
    QVERIFY(sampleValue(before, "process_cpu_seconds_total") >= 0);
    QVERIFY(sampleValue(before, "process_max_fds") >= 64);
    const double now = static_cast<double>(std::time(nullptr));
    const double start = sampleValue(before, "process_start_time_seconds");
    QVERIFY2(start > now - 3600 && start <= now + 1, std::to_string(start).c_str());
    const auto families = familiesOf(before);
    QCOMPARE(families.at("process_cpu_seconds_total").type, std::string("counter"));
    QCOMPARE(families.at("process_open_fds").type, std::string("gauge"));
  }
};

QTEST_GUILESS_MAIN(TstPrometheus)
#include "tst_prometheus.moc"
