// tesserad's metrics: the registry's text exposition (counters, labelled gauges with escaping,
// cumulative histograms, replaced gauge families, misuse ignored and counted) and the HTTP
// exporter driven by a plain socket client (status lines, headers, 400/404/405/500, silent
// clients that must not block others, prompt stop, bind errors).
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <thread>

#include "daemon/http_exporter.h"
#include "daemon/prometheus.h"

using namespace tessera;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// A blocking TCP connection to 127.0.0.1:port; closed when it goes out of scope.
class Client {
 public:
  explicit Client(int port) : fd_(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = ::connect(fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr) == 0;
  }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  ~Client() { ::close(fd_); }

  [[nodiscard]] bool connected() const { return connected_; }

  bool send(const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      const ssize_t n = ::send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }

  void finishSending() { ::shutdown(fd_, SHUT_WR); }

  // Everything until the server closes, or what came within `timeoutMs`; `closed` says which.
  std::string readAll(int timeoutMs, bool* closed = nullptr) {
    std::string out;
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeoutMs);
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
      pollfd p{fd_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) break;
      char buf[4096];
      const ssize_t n = ::recv(fd_, buf, sizeof buf, 0);
      if (n <= 0) {
        if (closed) *closed = true;
        return out;
      }
      out.append(buf, static_cast<size_t>(n));
    }
    if (closed) *closed = false;
    return out;
  }

 private:
  int fd_;
  bool connected_ = false;
};

struct Reply {
  std::string statusLine;
  std::string head;  // status line and headers
  std::string body;

  // The value of header `name` (case-insensitive), or an empty string.
  [[nodiscard]] std::string header(const std::string& name) const {
    const QString h = QString::fromStdString(head);
    for (const QString& line : h.split("\r\n")) {
      if (line.section(':', 0, 0).compare(QString::fromStdString(name), Qt::CaseInsensitive) == 0)
        return line.section(':', 1).trimmed().toStdString();
    }
    return {};
  }
};

Reply parseReply(const std::string& raw) {
  Reply r;
  const size_t end = raw.find("\r\n\r\n");
  r.head = raw.substr(0, end);
  r.statusLine = raw.substr(0, raw.find("\r\n"));
  if (end != std::string::npos) r.body = raw.substr(end + 4);
  return r;
}

Reply exchange(int port, const std::string& request) {
  Client client(port);
  if (!client.connected() || !client.send(request)) return {};
  return parseReply(client.readAll(3000));
}

std::unique_ptr<HttpExporter> startExporter(std::function<std::string()> render) {
  auto exporter = HttpExporter::start("127.0.0.1:0", std::move(render));
  if (!exporter.ok()) qFatal("%s", exporter.error().str().c_str());
  return std::move(exporter).value();
}

}  // namespace

class TstPrometheus : public QObject {
  Q_OBJECT

 private slots:
  // ---- the registry ----

  void rendersCountersAndLabelledGauges() {
    MetricsRegistry r;
    r.declareCounter("tessera_jobs_submitted_total", "Jobs accepted.");
    r.declareGauge("tessera_queue_depth", "Pending jobs\nby team \\ class.");
    r.add("tessera_jobs_submitted_total", 2);
    r.add("tessera_jobs_submitted_total", 1.5);
    r.set("tessera_queue_depth", 3, {{"team", "vi\"s\\ion\n"}, {"class", "batch"}});
    r.set("tessera_queue_depth", 4, {{"class", "batch"}, {"team", "nlp"}});
    r.set("tessera_queue_depth", 5, {{"team", "nlp"}, {"class", "batch"}});  // same series
    QCOMPARE(r.render(),
             std::string("# HELP tessera_jobs_submitted_total Jobs accepted.\n"
                         "# TYPE tessera_jobs_submitted_total counter\n"
                         "tessera_jobs_submitted_total 3.5\n"
                         "# HELP tessera_queue_depth Pending jobs\\nby team \\\\ class.\n"
                         "# TYPE tessera_queue_depth gauge\n"
                         "tessera_queue_depth{class=\"batch\",team=\"nlp\"} 5\n"
                         "tessera_queue_depth{class=\"batch\",team=\"vi\\\"s\\\\ion\\n\"} 3\n"));
    QCOMPARE(r.rejected(), uint64_t{0});
  }

  void rendersCumulativeHistograms() {
    MetricsRegistry r;
    r.declareHistogram("tessera_schedule_seconds", "Scheduling pass.", {1, 0.25, 0.5, 0.5, NAN});
    for (double v : {0.125, 0.25, 0.75, 4.0}) r.observe("tessera_schedule_seconds", v);
    r.observe("tessera_schedule_seconds", 0.5, {{"pool", "a"}});
    QCOMPARE(r.render(), std::string("# HELP tessera_schedule_seconds Scheduling pass.\n"
                                     "# TYPE tessera_schedule_seconds histogram\n"
                                     "tessera_schedule_seconds_bucket{le=\"0.25\"} 2\n"
                                     "tessera_schedule_seconds_bucket{le=\"0.5\"} 2\n"
                                     "tessera_schedule_seconds_bucket{le=\"1\"} 3\n"
                                     "tessera_schedule_seconds_bucket{le=\"+Inf\"} 4\n"
                                     "tessera_schedule_seconds_sum 5.125\n"
                                     "tessera_schedule_seconds_count 4\n"
                                     "tessera_schedule_seconds_bucket{pool=\"a\",le=\"0.25\"} 0\n"
                                     "tessera_schedule_seconds_bucket{pool=\"a\",le=\"0.5\"} 1\n"
                                     "tessera_schedule_seconds_bucket{pool=\"a\",le=\"1\"} 1\n"
                                     "tessera_schedule_seconds_bucket{pool=\"a\",le=\"+Inf\"} 1\n"
                                     "tessera_schedule_seconds_sum{pool=\"a\"} 0.5\n"
                                     "tessera_schedule_seconds_count{pool=\"a\"} 1\n"));
  }

  void replaceGaugeDropsStaleSeries() {
    MetricsRegistry r;
    r.declareGauge("q", "Queue.");
    r.set("q", 1, {{"team", "gone"}});
    r.replaceGauge("q", {{{{"team", "a"}}, 2}, {{{"team", "b"}}, 3}});
    QCOMPARE(r.render(), std::string("# HELP q Queue.\n# TYPE q gauge\n"
                                     "q{team=\"a\"} 2\nq{team=\"b\"} 3\n"));
    r.replaceGauge("q", {});
    QCOMPARE(r.render(), std::string("# HELP q Queue.\n# TYPE q gauge\n"));
  }

  void formatsSpecialValues() {
    MetricsRegistry r;
    r.declareGauge("g", "G.");
    r.set("g", NAN, {{"v", "nan"}});
    r.set("g", INFINITY, {{"v", "pinf"}});
    r.set("g", -INFINITY, {{"v", "ninf"}});
    r.set("g", 1e20, {{"v", "big"}});
    r.set("g", 0.1, {{"v", "tenth"}});
    r.set("g", -7, {{"v", "neg"}});
    const std::string text = r.render();
    for (const char* line : {"g{v=\"nan\"} NaN\n", "g{v=\"pinf\"} +Inf\n", "g{v=\"ninf\"} -Inf\n",
                             "g{v=\"big\"} 1e+20\n", "g{v=\"tenth\"} 0.1\n", "g{v=\"neg\"} -7\n"})
      QVERIFY2(text.find(line) != std::string::npos, text.c_str());
  }

  // Misuse is ignored (nothing crashes, nothing is rendered from it) and counted.
  void ignoresAndCountsMisuse() {
    MetricsRegistry r;
    r.declareCounter("c_total", "C.");
    r.declareCounter("c_total", "C again.");  // same type: a harmless no-op
    r.declareHistogram("h", "H.", {1});
    r.declareGauge("g", "G.");
    QCOMPARE(r.rejected(), uint64_t{0});
    r.declareGauge("c_total", "Now a gauge?");                            // 1: another type
    r.declareHistogram("h", "H.", {2});                                   // 2: other buckets
    r.declareCounter("1bad", "x");                                        // 3: invalid name
    r.declareCounter("tessera_metrics_rejected_total", "x");              // 4: reserved
    r.add("nothing_total", 1);                                            // 5: undeclared
    r.set("c_total", 1);                                                  // 6: wrong type
    r.add("c_total", -1);                                                 // 7: counters only grow
    r.add("c_total", NAN);                                                // 8
    r.add("c_total", 1, {{"1x", "v"}});                                   // 9: invalid label name
    r.add("c_total", 1, {{"__name__", "v"}});                             // 10: reserved label
    r.add("c_total", 1, {{"a", "1"}, {"a", "2"}});                        // 11: repeated label
    r.add("c_total", 1, {{"a", "\xff"}});                                 // 12: not UTF-8
    r.observe("h", 1, {{"le", "5"}});                                     // 13: le is the bucket's
    r.observe("h", NAN);                                                  // 14
    r.replaceGauge("g", {{{{"ok", "1"}}, 1}, {{{"bad-name", "1"}}, 2}});  // 15: one series
    QCOMPARE(r.rejected(), uint64_t{15});
    const std::string text = r.render();
    QVERIFY2(text.find("# TYPE c_total counter\n# HELP") != std::string::npos, text.c_str());
    QVERIFY2(text.find("# HELP h H.\n# TYPE h histogram\n# HELP") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("g{ok=\"1\"} 1\n") != std::string::npos, text.c_str());
    QVERIFY2(text.find("bad-name") == std::string::npos, text.c_str());
    QVERIFY2(text.find("# TYPE tessera_metrics_rejected_total counter\n"
                       "tessera_metrics_rejected_total 15\n") != std::string::npos,
             text.c_str());
    QVERIFY(text.find("1bad") == std::string::npos);
  }

  void limitsSeriesPerFamily() {
    MetricsRegistry r;
    r.declareCounter("jobs_total", "Jobs.");
    for (size_t i = 0; i <= MetricsRegistry::kMaxSeriesPerFamily; ++i)
      r.add("jobs_total", 1, {{"job", std::to_string(i)}});
    QCOMPARE(r.rejected(), uint64_t{1});
    r.add("jobs_total", 1, {{"job", "0"}});  // an existing series still counts
    QCOMPARE(r.rejected(), uint64_t{1});
  }

  void isThreadSafe() {
    MetricsRegistry r;
    r.declareCounter("n_total", "N.");
    r.declareHistogram("h", "H.", {0.5});
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&r, t] {
        for (int i = 0; i < 1000; ++i) {
          r.add("n_total", 1, {{"t", std::to_string(t % 2)}});
          r.observe("h", 1);
          if (i % 100 == 0) (void)r.render();
        }
      });
    for (auto& th : threads) th.join();
    const std::string text = r.render();
    QVERIFY2(text.find("n_total{t=\"0\"} 2000\n") != std::string::npos, text.c_str());
    QVERIFY2(text.find("n_total{t=\"1\"} 2000\n") != std::string::npos, text.c_str());
    QVERIFY2(text.find("h_count 4000\n") != std::string::npos, text.c_str());
  }

  // ---- the exporter ----

  void servesMetrics() {
    MetricsRegistry r;
    r.declareCounter("scrapes_total", "Scrapes.");
    auto exporter = startExporter([&r] {
      r.add("scrapes_total", 1);
      return r.render();
    });
    QVERIFY(exporter->port() > 0);
    for (int i = 1; i <= 2; ++i) {  // render() runs per request
      const Reply reply = exchange(exporter->port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
      QCOMPARE(reply.statusLine, std::string("HTTP/1.1 200 OK"));
      QCOMPARE(reply.header("Content-Type"),
               std::string("text/plain; version=0.0.4; charset=utf-8"));
      QCOMPARE(reply.header("Content-Length"), std::to_string(reply.body.size()));
      QCOMPARE(reply.header("Connection"), std::string("close"));
      QCOMPARE(reply.body,
               "# HELP scrapes_total Scrapes.\n# TYPE scrapes_total counter\n"
               "scrapes_total " +
                   std::to_string(i) + "\n");
    }
    // A query string, HTTP/1.0 and bare line feeds are all fine.
    QCOMPARE(exchange(exporter->port(), "GET /metrics?x=1 HTTP/1.0\n\n").statusLine,
             std::string("HTTP/1.1 200 OK"));
    const Reply head = exchange(exporter->port(), "HEAD /metrics HTTP/1.1\r\n\r\n");
    QCOMPARE(head.statusLine, std::string("HTTP/1.1 200 OK"));
    QVERIFY(head.body.empty());
    QVERIFY(std::stoul(head.header("Content-Length")) > 0);
  }

  void answersOtherRequests_data() {
    QTest::addColumn<QString>("request");
    QTest::addColumn<QString>("status");
    QTest::newRow("root") << "GET / HTTP/1.1\r\n\r\n"
                          << "HTTP/1.1 200 OK";
    QTest::newRow("unknown path") << "GET /metricz HTTP/1.1\r\n\r\n"
                                  << "HTTP/1.1 404 Not Found";
    QTest::newRow("post") << "POST /metrics HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
                          << "HTTP/1.1 405 Method Not Allowed";
    QTest::newRow("delete") << "DELETE / HTTP/1.1\r\n\r\n"
                            << "HTTP/1.1 405 Method Not Allowed";
    QTest::newRow("garbage") << "HELLO\r\n\r\n"
                             << "HTTP/1.1 400 Bad Request";
    QTest::newRow("no slash") << "GET metrics HTTP/1.1\r\n\r\n"
                              << "HTTP/1.1 400 Bad Request";
    QTest::newRow("other protocol") << "GET /metrics SPDY/3\r\n\r\n"
                                    << "HTTP/1.1 400 Bad Request";
    QTest::newRow("bad header") << "GET /metrics HTTP/1.1\r\nno colon\r\n\r\n"
                                << "HTTP/1.1 400 Bad Request";
    QTest::newRow("lowercase method") << "get /metrics HTTP/1.1\r\n\r\n"
                                      << "HTTP/1.1 400 Bad Request";
    QTest::newRow("oversized") << "GET /metrics HTTP/1.1\r\nX-Pad: " + QString(9000, 'a')
                               << "HTTP/1.1 400 Bad Request";
    QTest::newRow("oversized, complete")
        << "GET /metrics HTTP/1.1\r\nX-Pad: " + QString(9000, 'a') + "\r\n\r\n"
        << "HTTP/1.1 400 Bad Request";
  }

  void answersOtherRequests() {
    QFETCH(QString, request);
    QFETCH(QString, status);
    auto exporter = startExporter([] { return std::string("m 1\n"); });
    const Reply reply = exchange(exporter->port(), request.toStdString());
    QCOMPARE(reply.statusLine, status.toStdString());
    QCOMPARE(reply.header("Content-Length"), std::to_string(reply.body.size()));
    QCOMPARE(reply.header("Connection"), std::string("close"));
    if (status.contains("405")) QCOMPARE(reply.header("Allow"), std::string("GET, HEAD"));
    if (status.contains("200"))
      QVERIFY2(reply.body.find("/metrics") != std::string::npos, reply.body.c_str());
  }

  void aClientThatLeavesHalfARequestGets400() {
    auto exporter = startExporter([] { return std::string(); });
    Client client(exporter->port());
    QVERIFY(client.send("GET /metr"));
    client.finishSending();
    const Reply reply = parseReply(client.readAll(3000));
    QCOMPARE(reply.statusLine, std::string("HTTP/1.1 400 Bad Request"));
  }

  void aFailingRenderGives500() {
    auto exporter = startExporter([]() -> std::string { throw std::runtime_error("boom"); });
    const Reply reply = exchange(exporter->port(), "GET /metrics HTTP/1.1\r\n\r\n");
    QCOMPARE(reply.statusLine, std::string("HTTP/1.1 500 Internal Server Error"));
    QVERIFY(reply.body.find("boom") != std::string::npos);
  }

  void aSilentClientDoesNotBlockOthersOrStop() {
    auto exporter = startExporter([] { return std::string("m 1\n"); });
    Client silent(exporter->port());
    Client half(exporter->port());
    QVERIFY(silent.connected() && half.connected());
    QVERIFY(half.send("GET /metrics HTTP/1.1\r\n"));  // and never the blank line
    const auto start = Clock::now();
    const Reply reply = exchange(exporter->port(), "GET /metrics HTTP/1.1\r\n\r\n");
    QCOMPARE(reply.statusLine, std::string("HTTP/1.1 200 OK"));
    QVERIFY2(secondsSince(start) < 1.0, std::to_string(secondsSince(start)).c_str());
    const auto stopping = Clock::now();
    exporter->stop();
    QVERIFY2(secondsSince(stopping) < 1.0, std::to_string(secondsSince(stopping)).c_str());
    exporter->stop();  // idempotent
    bool closed = false;
    silent.readAll(1000, &closed);
    QVERIFY(closed);  // stop() closed the connections it held
  }

  void aSilentClientIsDroppedAfterTheTimeout() {
    auto exporter = startExporter([] { return std::string(); });
    Client silent(exporter->port());
    const auto start = Clock::now();
    bool closed = false;
    QVERIFY(silent.readAll(9000, &closed).empty());
    QVERIFY(closed);
    QVERIFY2(secondsSince(start) > 4.0 && secondsSince(start) < 7.0,
             std::to_string(secondsSince(start)).c_str());
  }

  void stopsPromptlyWhenIdle() {
    auto exporter = startExporter([] { return std::string(); });
    const int port = exporter->port();
    const auto start = Clock::now();
    exporter.reset();  // the destructor stops
    QVERIFY2(secondsSince(start) < 1.0, std::to_string(secondsSince(start)).c_str());
    Client late(port);
    QVERIFY(!late.connected());
  }

  void reportsBindErrorsWithTheAddress() {
    auto first = startExporter([] { return std::string(); });
    const std::string address = "127.0.0.1:" + std::to_string(first->port());
    auto second = HttpExporter::start(address, [] { return std::string(); });
    QVERIFY(!second.ok());
    QVERIFY2(second.error().message.find("cannot listen on " + address +
                                         ": Address already in use") != std::string::npos,
             second.error().str().c_str());
  }

  void refusesBadAddresses_data() {
    QTest::addColumn<QString>("address");
    QTest::newRow("no port") << "127.0.0.1";
    QTest::newRow("empty port") << "127.0.0.1:";
    QTest::newRow("port too large") << "127.0.0.1:65536";
    QTest::newRow("port not a number") << "127.0.0.1:http";
    QTest::newRow("host name") << "example.com:9464";
    QTest::newRow("not a local address") << "192.0.2.1:0";  // TEST-NET-1: not ours, bind fails
  }

  void refusesBadAddresses() {
    QFETCH(QString, address);
    auto exporter = HttpExporter::start(address.toStdString(), [] { return std::string(); });
    QVERIFY(!exporter.ok());
    QVERIFY2(exporter.error().message.find(address.toStdString()) != std::string::npos,
             exporter.error().str().c_str());
  }

  void acceptsLocalhostAndAnyAddress() {
    for (const char* address : {"localhost:0", "0.0.0.0:0"}) {
      auto exporter = HttpExporter::start(address, [] { return std::string("m 1\n"); });
      QVERIFY2(exporter.ok(), exporter.ok() ? "" : exporter.error().str().c_str());
      QCOMPARE(exchange((*exporter)->port(), "GET /metrics HTTP/1.1\r\n\r\n").body,
               std::string("m 1\n"));
    }
  }
};

QTEST_GUILESS_MAIN(TstPrometheus)
#include "tst_prometheus.moc"
