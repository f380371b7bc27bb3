// NVML telemetry for nodes without dcgm-exporter: sampled through the fake libnvidia-ml.so.1 and
// read back with the same parser tesserad applies to pushed scrapes; Xid and double-bit ECC
// events through the fault watch's event set (nvml_faults.h) as Xid rows.
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "inventory/nvml_faults.h"
#include "inventory/nvml_sampler.h"
#include "sim/dcgm_metrics.h"

using namespace tessera;

namespace {

const std::string kData = TESSERA_TEST_DATA;
const std::string kH100 =
    kData + "/real-gpu/h100-sxm5-80gb/nvml-probe.txt:" + kData + "/inventory/h100-pci.txt";

// The recorded H100 plus `extra` fixture lines (fake_nvml.cpp's format).
Expected<std::vector<GpuSample>> sampleWith(const QTemporaryDir& dir, const std::string& extra) {
  const std::string path = dir.path().toStdString() + "/extra.txt";
  std::ofstream(path) << extra;
  qputenv("TESSERA_FAKE_NVML", QByteArray::fromStdString(kH100 + ":" + path));
  return sampleNvml(NvmlProbeOptions{});
}

}  // namespace

class TestNvmlSampler : public QObject {
  Q_OBJECT

 private slots:
  // The values of query-gpu.csv on the recorded node (0 %, 31 C, 71.01 W), with 1024 MiB in use.
  void samplesReadBackAsAScrape() {
    QTemporaryDir dir;
    auto samples = sampleWith(dir,
                              "gpu 0 util 0\ngpu 0 temp 31\ngpu 0 power_mw 71010\n"
                              "gpu 0 mem_used_mib 1024\n");
    QVERIFY2(samples.ok(), samples ? "" : samples.error().str().c_str());
    QCOMPARE(samples->size(), size_t{1});
    const std::string text = dcgmExposition(*samples, "gpu-h100-01");
    auto scrape = parseDcgmMetrics(text, "nvml");
    QVERIFY2(scrape.ok(), (scrape ? text : scrape.error().str() + "\n" + text).c_str());
    QVERIFY(scrape->warnings.empty());
    QCOMPARE(scrape->gpus.size(), size_t{1});
    const DcgmGpuReading& r = scrape->gpus[0];
    QCOMPARE(r.hostname, std::string("gpu-h100-01"));
    QCOMPARE(r.gpu, 0);
    QCOMPARE(r.uuid, std::string("GPU-5e1ec7ed-0000-4000-8000-00000000a100"));
    QCOMPARE(r.pciBusId, std::string("00000000:00:06.0"));
    QCOMPARE(r.modelName, std::string("NVIDIA H100 80GB HBM3"));
    QCOMPARE(*r.util, 0.0);
    QCOMPARE(*r.temperatureC, 31.0);
    QCOMPARE(*r.powerWatts, 71.01);
    QCOMPARE(*r.fbUsedMiB, 1024.0);
    QCOMPARE(*r.fbFreeMiB, 81559.0 - 1024.0);
    QVERIFY(std::abs(*r.memoryUsed - 1024.0 / 81559.0) < 1e-9);
    QVERIFY(!r.xid || *r.xid == 0);
  }

  void migGpuHasNoWholeGpuUtilization() {
    QTemporaryDir dir;
    auto samples = sampleWith(dir, "gpu 0 mig_mode 1 pending 1 (Success)\ngpu 0 util 55\n");
    QVERIFY(samples.ok());
    QVERIFY(!(*samples)[0].utilPercent);
    QVERIFY(!contains(dcgmExposition(*samples, "n"), "DCGM_FI_DEV_GPU_UTIL{"));
  }

  void lostGpuIsXid79() {
    QTemporaryDir dir;
    auto samples = sampleWith(dir, "error nvmlDeviceGetTemperature 15\n");
    QVERIFY2(samples.ok(), samples ? "" : samples.error().str().c_str());
    QVERIFY((*samples)[0].lost);
    auto scrape = parseDcgmMetrics(dcgmExposition(*samples, "n"), "nvml");
    QVERIFY(scrape.ok());
    QCOMPARE(scrape->gpus.size(), size_t{1});
    QCOMPARE(*scrape->gpus[0].xid, 79);
    QVERIFY(contains(scrape->gpus[0].xidMessage, "fallen off the bus"));
    QVERIFY(!scrape->gpus[0].temperatureC);
  }

  // An Xid event that happens while the watch is open is taken once, kept for every later sample
  // (dcgm-exporter's last-Xid gauge does the same) and survives the fixture reload that another
  // NVML session of the process causes (the agent's probe and sampler open their own).
  void faultWatchTakesXidEventsOnce() {
    QTemporaryDir dir;
    const std::string extra = dir.path().toStdString() + "/extra.txt";
    std::ofstream(extra) << "";
    qputenv("TESSERA_FAKE_NVML", QByteArray::fromStdString(kH100 + ":" + extra));
    auto watch = NvmlFaultWatch::open(NvmlProbeOptions{});
    QVERIFY2(watch.ok(), watch ? "" : watch.error().str().c_str());
    QVERIFY((*watch)->poll().empty());
    QVERIFY((*watch)->notes().empty());
    std::ofstream(extra) << "event 0 xid 48\n";
    auto samples = sampleNvml(NvmlProbeOptions{});
    QVERIFY(samples.ok());
    QCOMPARE((*watch)->poll(), std::vector<std::string>{"GPU 0: Xid 48"});
    QVERIFY((*watch)->poll().empty());
    (*watch)->annotate(*samples);
    auto scrape = parseDcgmMetrics(dcgmExposition(*samples, "n"), "nvml");
    QVERIFY(scrape.ok());
    QCOMPARE(*scrape->gpus[0].xid, 48);
    auto later = sampleNvml(NvmlProbeOptions{});
    QVERIFY(later.ok());
    (*watch)->annotate(*later);
    QCOMPARE((*later)[0].xid, 48);
  }

  // A double-bit ECC count (no Xid event) is reported as the counter and as Xid 48, which
  // tesserad holds a GPU for.
  void doubleBitEccIsXid48() {
    QTemporaryDir dir;
    auto samples = sampleWith(dir, "gpu 0 ecc_dbe 2\n");
    QVERIFY(samples.ok());
    auto watch = NvmlFaultWatch::open(NvmlProbeOptions{});
    QVERIFY(watch.ok());
    QVERIFY((*watch)->poll().empty());
    QCOMPARE((*watch)->seen().at(0).dbeVolatile, 2ull);
    (*watch)->annotate(*samples);
    const std::string text = dcgmExposition(*samples, "n");
    QVERIFY2(contains(text, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL{gpu=\"0\",") &&
                 contains(text, "\"} 2\n"),
             text.c_str());
    auto scrape = parseDcgmMetrics(text, "nvml");
    QVERIFY(scrape.ok());
    QCOMPARE(*scrape->gpus[0].xid, 48);
    QCOMPARE(scrape->gpus[0].xidMessage,
             std::string("Double Bit ECC Error (NVML: 2 uncorrected volatile ECC errors)"));
  }

  void otherNvmlErrorsFail() {
    QTemporaryDir dir;
    auto samples = sampleWith(dir, "error nvmlDeviceGetCount_v2 999\n");
    QVERIFY(!samples.ok());
    QVERIFY2(contains(samples.error().str(), "NVML nvmlDeviceGetCount_v2 failed: Unknown Error"),
             samples.error().str().c_str());
  }

 private:
  static bool contains(const std::string& hay, const std::string& needle) {
    return hay.find(needle) != std::string::npos;
  }
};

QTEST_GUILESS_MAIN(TestNvmlSampler)
#include "tst_nvml_sampler.moc"
