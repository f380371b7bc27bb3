// `tessera agent` against a real tesserad process: NVML telemetry (the fake libnvidia-ml.so.1,
// via LD_LIBRARY_PATH) or a dcgm-exporter scrape arrives with the agent's token; after tesserad
// is killed and restarted on the same port and database the agent reconnects and sends what it
// buffered (oldest dropped, counted in its log); SIGTERM stops it with exit 0; bad flags are
// usage errors.
#include <QProcess>
#include <QRegularExpression>
#include <QTcpServer>
#include <QTcpSocket>
#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <fstream>

#include "inventory/tessera_run.h"
#include "rpc/auth.h"
#include "rpc/daemon_process.h"
#include "rpc/snapshot_gpu.h"

using namespace tessera;
using tessera::test::AgentProcess;
using tessera::test::Daemon;
using tessera::test::kFakeNvmlH100;
using tessera::test::Run;
using tessera::test::runTessera;
using tessera::test::snapshotGpu;

namespace {

// The fake NVML serves the recorded H100 with GPU 0 at `util` percent; the agent's NVML reads
// the files again at each sample.
void setUtil(const QTemporaryDir& dir, int util) {
  const std::string path = dir.path().toStdString() + "/extra.txt";
  std::ofstream(path) << "gpu 0 util " << util << "\ngpu 0 temp 31\n";
  qputenv("TESSERA_FAKE_NVML", QByteArray::fromStdString(kFakeNvmlH100 + ":" + path));
}

// A token file with an agent and a viewer; the tokens by role.
std::map<std::string, std::string> writeTokens(const QTemporaryDir& dir) {
  std::map<std::string, std::string> tokens;
  std::ofstream file(dir.filePath("tokens.yaml").toStdString());
  file << "tokens:\n";
  for (const char* role : {"agent", "viewer"}) {
    tokens[role] = *generateToken();
    file << "  - {name: node-" << role << ", role: " << role
         << ", sha256: " << sha256Hex(tokens[role]) << "}\n";
  }
  std::ofstream(dir.filePath("agent.token").toStdString()) << tokens["agent"] << "\n";
  return tokens;
}

// GPU 0 of pod-a-01 as tesserad sees it has utilization `fraction`.
bool hasUtil(rpc::RemoteSession& c, double fraction) {
  const v1::SnapshotGpu gpu = snapshotGpu(c, "pod-a-01", 0);
  return gpu.has_util() && std::abs(gpu.util() - fraction) < 1e-9;
}

}  // namespace

class TestAgentE2e : public QObject {
  Q_OBJECT

 private slots:
  void nvmlTelemetryArrivesAndSigtermStops() {
    QTemporaryDir dir;
    auto tokens = writeTokens(dir);
    setUtil(dir, 42);
    Daemon d;
    QVERIFY2(d.start({"--mode", "live", "--db", dir.filePath("agent.db"), "--tokens",
                      dir.filePath("tokens.yaml")}),
             qPrintable(d.log()));
    auto viewer = d.client(tokens["viewer"]);
    AgentProcess agent(d.address(), dir.filePath("agent.token"), "pod-a-01", {"--dcgm-url", ""});
    QTRY_VERIFY_WITH_TIMEOUT(hasUtil(*viewer, 0.42), 15000);
    setUtil(dir, 43);  // every interval, not once
    QTRY_VERIFY_WITH_TIMEOUT(hasUtil(*viewer, 0.43), 15000);
    QCOMPARE(agent.terminate(), 0);
    const QString log = agent.log();
    QVERIFY2(log.contains("telemetry from nvml"), qPrintable(log));
    // The inventory is probed and reported once (it does not change), under the agent's name.
    QCOMPARE(log.count("tessera agent: inventory: 1 GPUs"), 1);
    QVERIFY2(log.contains("tesserad took the inventory: node pod-a-01 known"), qPrintable(log));
    QVERIFY2(!log.contains("refused"), qPrintable(log));
    QVERIFY2(log.contains("tessera agent: stopping"), qPrintable(log));
  }

  void dcgmScrapeIsPreferred() {
    QTemporaryDir dir;
    auto tokens = writeTokens(dir);
    setUtil(dir, 55);
    const Run sample = runTessera({"node", "sample"});
    QVERIFY2(sample.code == 0, sample.err.constData());
    setUtil(dir, 12);  // what NVML would say: the scrape must win
    QTcpServer exporter;
    QVERIFY(exporter.listen(QHostAddress::LocalHost));
    int scrapes = 0;
    connect(&exporter, &QTcpServer::newConnection, [&] {
      while (QTcpSocket* s = exporter.nextPendingConnection()) {
        // /metrics moved: the agent follows the redirect, with HTTP/1.0 requests both times.
        connect(s, &QTcpSocket::readyRead, s, [s, &sample, &scrapes] {
          const QByteArray request = s->readAll();
          if (request.contains("GET /metrics HTTP/1.0")) {
            s->write("HTTP/1.0 302 Found\r\nLocation: /scrape\r\n\r\n");
          } else if (request.contains("GET /scrape HTTP/1.0")) {
            ++scrapes;
            s->write("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\n" + sample.out);
          } else {
            return;
          }
          s->disconnectFromHost();
        });
        connect(s, &QTcpSocket::disconnected, s, &QObject::deleteLater);
      }
    });
    Daemon d;
    QVERIFY2(d.start({"--mode", "live", "--db", dir.filePath("agent.db"), "--tokens",
                      dir.filePath("tokens.yaml")}),
             qPrintable(d.log()));
    auto viewer = d.client(tokens["viewer"]);
    const QString url = QString("http://127.0.0.1:%1/metrics").arg(exporter.serverPort());
    AgentProcess agent(d.address(), dir.filePath("agent.token"), "pod-a-01", {"--dcgm-url", url});
    QTRY_VERIFY_WITH_TIMEOUT(hasUtil(*viewer, 0.55), 15000);
    QVERIFY(scrapes > 0);
    // The exporter goes away: NVML takes over.
    exporter.close();
    QTRY_VERIFY_WITH_TIMEOUT(hasUtil(*viewer, 0.12), 15000);
    QCOMPARE(agent.terminate(), 0);
    const QString log = agent.log();
    QVERIFY2(log.contains("telemetry from dcgm-exporter " + url), qPrintable(log));
    QVERIFY2(log.contains("telemetry from nvml"), qPrintable(log));
  }

  void reconnectsAndSendsTheBuffer() {
    QTemporaryDir dir;
    auto tokens = writeTokens(dir);
    setUtil(dir, 42);
    const QStringList daemonArgs{"--mode",   "live",
                                 "--db",     dir.filePath("agent.db"),
                                 "--tokens", dir.filePath("tokens.yaml")};
    Daemon d;
    QVERIFY2(d.start(daemonArgs), qPrintable(d.log()));
    const int port = d.port();
    AgentProcess agent(d.address(), dir.filePath("agent.token"), "pod-a-01",
                       {"--dcgm-url", "", "--buffer", "3"});
    QTRY_VERIFY_WITH_TIMEOUT(hasUtil(*d.client(tokens["viewer"]), 0.42), 15000);

    d.kill();
    setUtil(dir, 77);  // read while tesserad is away: only the buffer can bring it
    QTRY_VERIFY_WITH_TIMEOUT(agent.log().contains("buffer full (3 samples)"), 15000);
    QVERIFY2(agent.log().contains("unreachable"), qPrintable(agent.log()));
    setUtil(dir, 78);  // what it reads after the restart

    Daemon back;
    QVERIFY2(back.start(QStringList(daemonArgs) << "--listen" << QString("127.0.0.1:%1").arg(port)),
             qPrintable(back.log()));
    auto viewer = back.client(tokens["viewer"]);
    static const QRegularExpression resent(
        R"(tesserad is back: sent 3 buffered samples, dropped the (\d+) oldest while it was away)");
    QTRY_VERIFY_WITH_TIMEOUT(resent.match(agent.log()).hasMatch(), 20000);
    QVERIFY(resent.match(agent.log()).captured(1).toInt() >= 1);
    QTRY_VERIFY_WITH_TIMEOUT(hasUtil(*viewer, 0.78), 15000);
    QCOMPARE(agent.terminate(), 0);
    QCOMPARE(back.terminate(), 0);
  }

  void badFlagsAreUsageErrors() {
    const Run zero = runTessera({"agent", "--interval", "0"});
    QCOMPARE(zero.code, 2);
    QVERIFY2(zero.err.contains("--interval: '0' is not a number of seconds above 0"),
             zero.err.constData());
    const Run word = runTessera({"agent", "--interval", "abc"});
    QCOMPARE(word.code, 2);
    QVERIFY2(word.err.contains("--interval: 'abc' is not a number of seconds above 0"),
             word.err.constData());
    const Run buffer = runTessera({"agent", "--buffer", "0"});
    QCOMPARE(buffer.code, 2);
    QVERIFY2(buffer.err.contains("--buffer"), buffer.err.constData());
    const Run url = runTessera({"agent", "--dcgm-url", "ftp://node:9400/metrics"});
    QCOMPARE(url.code, 2);
    QVERIFY2(
        url.err.contains("--dcgm-url: 'ftp://node:9400/metrics' is not an http:// or https:// URL"),
        url.err.constData());
    const Run hostless = runTessera({"agent", "--dcgm-url", "http://"});
    QCOMPARE(hostless.code, 2);
    QVERIFY2(hostless.err.contains("--dcgm-url: 'http://' is not a URL"), hostless.err.constData());
    const Run token = runTessera({"agent", "--token-file", "/nonexistent/agent.token"});
    QCOMPARE(token.code, 2);
    QVERIFY2(token.err.contains("/nonexistent/agent.token"), token.err.constData());
    const Run help = runTessera({"agent", "--help"});
    QCOMPARE(help.code, 0);
    QVERIFY(help.out.contains("--max-backoff"));
  }
};

QTEST_GUILESS_MAIN(TestAgentE2e)
#include "tst_agent_e2e.moc"
