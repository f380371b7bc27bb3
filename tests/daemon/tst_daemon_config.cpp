// tesserad's configuration file: the Slurm executor's keys reach the executor, and a bad value
// names its key.
#include <QtTest>

#include <fstream>

#include "daemon/config.h"
#include "daemon/daemon.h"

using namespace tessera;

namespace {

Status loadText(const QTemporaryDir& dir, const std::string& text, TesseradConfig& c) {
  const std::string path = dir.filePath("tesserad.yaml").toStdString();
  std::ofstream(path) << text;
  if (Status st = loadTesseradConfig(path, c); !st) return st;
  return validateTesseradConfig(c);
}

}  // namespace

class TstDaemonConfig : public QObject {
  Q_OBJECT

 private slots:
  void slurmPollIntervalsReachTheExecutor() {
    QTemporaryDir dir;
    TesseradConfig c;
    const Status st =
        loadText(dir,
                 "mode: live\nexecutor: slurm\nslurm:\n  poll_interval: 0.5\n"
                 "  full_poll_interval: 30s\n  idle_poll_interval: 7s\n  exact_gpus: true\n"
                 "  mps_per_gpu: 200\n"
                 "  mig_hook: [/opt/site/apply-mig, --reboot-slurmd]\n"
                 "  mig_hook_timeout: 2m\n  release_settle: 45s\n",
                 c);
    QVERIFY2(st, st ? "" : st.error().str().c_str());
    const SlurmExecutorConfig sc = slurmExecutorConfig(c.slurm);
    QCOMPARE(sc.pollSeconds, 0.5);
    QCOMPARE(sc.driver.fullPollSeconds, Seconds{30});
    QCOMPARE(sc.idlePollSeconds, 7.0);
    QVERIFY(sc.exactGpus);
    QCOMPARE(sc.mpsPerGpu, 200);
    QCOMPARE(sc.driver.migHook,
             (std::vector<std::string>{"/opt/site/apply-mig", "--reboot-slurmd"}));
    QCOMPARE(sc.driver.migHookTimeout, std::chrono::milliseconds(120000));
    QCOMPARE(sc.driver.releaseSettle, Seconds{45});

    const SlurmExecutorConfig defaults = slurmExecutorConfig(TesseradConfig{}.slurm);
    QCOMPARE(defaults.driver.fullPollSeconds, Seconds{10});
    QCOMPARE(defaults.idlePollSeconds, 5.0);
    QVERIFY(!defaults.exactGpus);
    QCOMPARE(defaults.mpsPerGpu, 100);
    QCOMPARE(defaults.driver.releaseSettle, Seconds{30});
  }

  void historyKeysAreRead() {
    QTemporaryDir dir;
    TesseradConfig c;
    const Status st = loadText(dir,
                               "mode: live\nretention:\n  jobs: 90d\n  events: 30d\n"
                               "memory:\n  finished_jobs: 5m\n  events: 2000\n",
                               c);
    QVERIFY2(st, st ? "" : st.error().str().c_str());
    QCOMPARE(c.retentionJobs, Seconds{90 * 86400});
    QCOMPARE(c.retentionEvents, Seconds{30 * 86400});
    QCOMPARE(c.memoryFinishedFor, Seconds{300});
    QCOMPARE(c.memoryEvents, int64_t{2000});
    const TesseradConfig defaults;
    QCOMPARE(defaults.retentionJobs, Seconds{0});  // keep forever unless the site says otherwise
    QCOMPARE(defaults.retentionEvents, Seconds{0});
  }

  void telemetryRefreshReachesTheBackend() {
    QTemporaryDir dir;
    TesseradConfig c;
    QCOMPARE(c.telemetryRefreshSeconds, 1.0);  // the default a site gets
    const Status st = loadText(dir, "mode: live\ntelemetry:\n  refresh: 5s\n", c);
    QVERIFY2(st, st ? "" : st.error().str().c_str());
    QCOMPARE(c.telemetryRefreshSeconds, 5.0);
  }

  void aBadHistoryKeyIsNamed_data() {
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<QString>("key");
    QTest::newRow("memory events") << "memory:\n  events: 10\n"
                                   << "memory.events";
    QTest::newRow("retention jobs") << "retention:\n  jobs: forever\n"
                                    << "retention.jobs";
    QTest::newRow("telemetry refresh negative") << "telemetry:\n  refresh: -1\n"
                                                << "telemetry.refresh";
    QTest::newRow("telemetry refresh too long") << "telemetry:\n  refresh: 5m\n"
                                                << "telemetry.refresh";
    QTest::newRow("retention shorter than memory")
        << "retention:\n  jobs: 5m\nmemory:\n  finished_jobs: 10m\n"
        << "retention.jobs";
  }
  void aBadHistoryKeyIsNamed() {
    QFETCH(QString, yaml);
    QFETCH(QString, key);
    QTemporaryDir dir;
    TesseradConfig c;
    const Status st = loadText(dir, "mode: live\n" + yaml.toStdString(), c);
    QVERIFY(!st);
    QVERIFY2(st.error().str().find(key.toStdString()) != std::string::npos,
             st.error().str().c_str());
  }

  void aNonPositiveIntervalNamesItsKey_data() {
    QTest::addColumn<QString>("yaml");
    QTest::addColumn<QString>("key");
    QTest::newRow("full") << "  full_poll_interval: 0s\n"
                          << "slurm.full_poll_interval";
    QTest::newRow("idle") << "  idle_poll_interval: 0s\n"
                          << "slurm.idle_poll_interval";
    QTest::newRow("poll") << "  poll_interval: 0s\n"
                          << "slurm.poll_interval";
    QTest::newRow("hook timeout") << "  mig_hook_timeout: 0s\n"
                                  << "slurm.mig_hook_timeout";
    QTest::newRow("release settle") << "  release_settle: 0s\n"
                                    << "slurm.release_settle";
    QTest::newRow("mps per GPU") << "  mps_per_gpu: 0\n"
                                 << "slurm.mps_per_gpu";
  }
  void aNonPositiveIntervalNamesItsKey() {
    QFETCH(QString, yaml);
    QFETCH(QString, key);
    QTemporaryDir dir;
    TesseradConfig c;
    const Status st =
        loadText(dir, "mode: live\nexecutor: slurm\nslurm:\n" + yaml.toStdString(), c);
    QVERIFY(!st);
    QVERIFY2(st.error().str().find(key.toStdString()) != std::string::npos,
             st.error().str().c_str());
  }
};

QTEST_GUILESS_MAIN(TstDaemonConfig)
#include "tst_daemon_config.moc"
