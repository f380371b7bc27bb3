// The operator's view of `tesserad --executor slurm`, end to end: the real tesserad process over
// the slurm_cluster fixture's daemons, read through the real `tessera ctl` and the Prometheus
// endpoint. The executor's logic is tst_slurm_executor's; this checks what reaches the faces.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <thread>

#include <nlohmann/json.hpp>

#include "../rpc/daemon_process.h"

using namespace tessera::test;

namespace {

QString env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) qFatal("%s is not set: run this test through ctest (slurm_cluster fixture)", name);
  return QString::fromUtf8(v);
}

// `tessera ctl --server ADDRESS ARGS...`: its output, with "[exit N]" appended when it did not
// exit with `expectCode`, so a check on the text fails and shows why (a qFatal would leave the
// daemon running).
QString ctl(const std::string& server, const QStringList& args, int expectCode = 0) {
  QProcess p;
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(TESSERA_BIN, QStringList{"ctl", "--server", QString::fromStdString(server)} + args);
  if (!p.waitForFinished(60000)) return "[tessera ctl did not finish]";
  const QString out = QString::fromUtf8(p.readAll());
  if (p.exitCode() != expectCode) return out + QString("[exit %1]").arg(p.exitCode());
  return out;
}

bool eventually(const std::function<bool()>& done, double seconds = 30) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return done();
}

}  // namespace

class TstTesseradSlurm : public QObject {
  Q_OBJECT

 private slots:
  void theExecutorReachesHealthJobsAndMetrics() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString workload = dir.filePath("workload.yaml");
    std::ofstream(workload.toStdString()) << "version: 1\nteams:\n  - {name: vision, weight: 1}\n";
    Daemon d;
    QVERIFY2(d.start({"--mode", "live", "--executor", "slurm", "--slurm-conf", env("SLURM_CONF"),
                      "--db", dir.filePath("tesserad.db"), "--cluster",
                      QString(TESSERA_TEST_DATA) + "/fixture-cluster.yaml", "--workload", workload,
                      "--cycle-interval", "0.2"}),
             qPrintable(d.log()));
    const std::string server = d.address();

    // Health stays SERVING and says what runs the jobs, once the executor has polled Slurm.
    QVERIFY(eventually([&] { return ctl(server, {"health"}).contains("executor slurm ready"); }));
    const auto health =
        nlohmann::json::parse(ctl(server, {"health", "-o", "json"}).toStdString(), nullptr, false);
    QVERIFY(!health.is_discarded());
    QCOMPARE(health.value("status", ""), std::string("SERVING"));
    QVERIFY(health.contains("executor"));
    QCOMPARE(health["executor"].value("state", ""), std::string("ready"));
    QVERIFY(health["executor"].value("last_sync", int64_t{0}) > 0);

    // A job submitted with a command runs in Slurm; ctl job shows its Slurm job beside it.
    const QString submitted = ctl(server, {"submit", "--team", "vision", "--gpus", "1", "--name",
                                           "e2e", "--command", "sleep 4", "--time-limit", "5m",
                                           "--workdir", env("TESSERA_SLURM_CLUSTER") + "/jobs"});
    const QString id = submitted.split(' ').last().trimmed();
    QVERIFY2(submitted.startsWith("submitted job"), qPrintable(submitted));
    QVERIFY(eventually([&] {
      const QString job = ctl(server, {"get", id});
      return job.contains(QRegularExpression(R"(slurm job\s+\d+ RUNNING)"));
    }));
    QVERIFY(eventually([&] { return ctl(server, {"get", id}).contains("completed"); }));

    // Its start was timed, from the engine's decision to RUNNING seen in Slurm.
    const QByteArray metrics = d.scrapeMetrics();
    QVERIFY2(metrics.contains("tessera_executor_start_seconds_count{executor=\"slurm\"} 1"),
             metrics.constData());
    QVERIFY(metrics.contains("tessera_executor_up{executor=\"slurm\"} 1"));
    QVERIFY(d.terminate() == 0);
  }

  // Not root and not SlurmUser: tesserad refuses to start, saying why and how to fix it, rather
  // than accept jobs Slurm would never let it place. (A real unprivileged process: setpriv.)
  void anUnprivilegedTesseradRefusesToStart() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    QFile::setPermissions(dir.path(), QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                          QFileDevice::ExeOwner | QFileDevice::ReadOther |
                                          QFileDevice::WriteOther | QFileDevice::ExeOther);
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start("setpriv",
            {"--reuid=65534", "--regid=65534", "--clear-groups", TESSERAD_BIN, "--mode", "live",
             "--executor", "slurm", "--slurm-conf", env("SLURM_CONF"), "--db", dir.filePath("t.db"),
             "--cluster", QString(TESSERA_TEST_DATA) + "/fixture-cluster.yaml", "--listen",
             "127.0.0.1:0", "--metrics-listen", "off"});
    QVERIFY(p.waitForFinished(60000));
    const QString out = QString::fromUtf8(p.readAll());
    QCOMPARE(p.exitCode(), 1);
    QVERIFY2(out.contains("Slurm lets only root or its SlurmUser ('root')") &&
                 out.contains("run tesserad as root or as 'root'"),
             qPrintable(out));
    QVERIFY(!QFile::exists(dir.filePath("t.db")));  // refused before anything was created
  }
};

QTEST_GUILESS_MAIN(TstTesseradSlurm)
#include "tst_tesserad_slurm.moc"
