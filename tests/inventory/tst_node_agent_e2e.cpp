// The node agent's telemetry path against a real tesserad: `tessera node sample` reads the GPUs
// through NVML (the fake libnvidia-ml.so.1, via LD_LIBRARY_PATH) and `tessera ctl telemetry push`
// delivers it, as a systemd timer on a node without dcgm-exporter would pipe them.
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "inventory/tessera_run.h"
#include "rpc/daemon_process.h"
#include "rpc/snapshot_gpu.h"

using namespace tessera;
using tessera::test::Daemon;
using tessera::test::kFakeNvmlH100;
using tessera::test::Run;
using tessera::test::runTessera;
using tessera::test::snapshotGpu;

namespace {

// `tessera node sample` on a node whose NVML serves the recorded H100 plus `extra` lines.
Run sampleNode(const QTemporaryDir& dir, const std::string& extra) {
  const std::string path = dir.path().toStdString() + "/extra.txt";
  std::ofstream(path) << extra;
  qputenv("TESSERA_FAKE_NVML", QByteArray::fromStdString(kFakeNvmlH100 + ":" + path));
  return runTessera({"node", "sample", "--hostname", "gpu-h100-01"});
}

}  // namespace

class TestNodeAgentE2e : public QObject {
  Q_OBJECT

 private slots:
  void nvmlSamplesReachTesserad() {
    QTemporaryDir dir;
    Daemon d;
    QVERIFY2(d.start({"--mode", "live", "--db", dir.filePath("agent.db")}), qPrintable(d.log()));
    const QString server = QString::fromStdString(d.address());

    const Run sample = sampleNode(dir, "gpu 0 util 42\ngpu 0 temp 31\ngpu 0 power_mw 71010\n");
    QVERIFY2(sample.code == 0, sample.err.constData());
    QVERIFY(sample.out.contains("DCGM_FI_DEV_GPU_UTIL{gpu=\"0\""));
    // The demo cluster has no node gpu-h100-01: --node names the one this agent runs on.
    const Run push = runTessera(
        {"ctl", "--server", server, "telemetry", "push", "--node", "pod-a-01"}, sample.out);
    QVERIFY2(push.code == 0, (push.out + push.err).constData());
    QVERIFY2(push.out.contains("1 GPU updated"), push.out.constData());
    auto c = d.client();
    const v1::SnapshotGpu gpu = snapshotGpu(*c, "pod-a-01", 0);
    QVERIFY(gpu.has_util() && std::abs(gpu.util() - 0.42) < 1e-9);
    QVERIFY(gpu.has_temperature_c() && std::abs(gpu.temperature_c() - 31) < 1e-9);
    QCOMPARE(gpu.fault().xid(), 0);

    // A GPU NVML calls lost arrives as Xid 79 and shows as a fault.
    const Run lost = sampleNode(dir, "error nvmlDeviceGetPowerUsage 15\n");
    QVERIFY2(lost.code == 0, lost.err.constData());
    const Run pushLost = runTessera(
        {"ctl", "--server", server, "telemetry", "push", "--node", "pod-a-01"}, lost.out);
    QVERIFY2(pushLost.code == 0, (pushLost.out + pushLost.err).constData());
    QCOMPARE(snapshotGpu(*c, "pod-a-01", 0).fault().xid(), 79);
  }

  void nvmlFailureIsAnError() {
    QTemporaryDir dir;
    const Run r = sampleNode(dir, "error nvmlInit_v2 9\n");
    QCOMPARE(r.code, 1);
    QVERIFY2(r.err.contains("NVML nvmlInit_v2 failed: Driver Not Loaded (9)"), r.err.constData());
    QVERIFY(r.out.isEmpty());
  }
};

QTEST_GUILESS_MAIN(TestNodeAgentE2e)
#include "tst_node_agent_e2e.moc"
