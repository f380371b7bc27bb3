// dcgm-exporter scrapes: the sample in shared reference gpu-hardware.md 4.3 (copied verbatim to
// tests/data/dcgm/reference-sample.prom) and a hand-written two-GPU + MIG scrape, every field
// checked against values worked out by hand; grouping by host, GPU and MIG instance; warnings
// for doubtful data; errors with source:line:column for malformed lines; and garbage that must
// neither crash nor pass.
#include <QFile>
#include <QRandomGenerator>
#include <QtTest>

#include <cmath>
#include <sstream>
#include <string>

#include "sim/dcgm_metrics.h"

using namespace tessera;

namespace {

std::string fixturePath(const char* name) {
  return std::string(TESSERA_TEST_DATA) + "/dcgm/" + name;
}

std::string readFixture(const char* name) {
  QFile f(QString::fromStdString(fixturePath(name)));
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open fixture %s", name);
  const QByteArray bytes = f.readAll();
  return std::string(bytes.constData(), static_cast<size_t>(bytes.size()));
}

DcgmScrape parse(const std::string& text, const std::string& source = "test") {
  auto s = parseDcgmMetrics(text, source);
  if (!s) qFatal("%s", s.error().str().c_str());
  return std::move(*s);
}

Error parseError(const std::string& text) {
  auto s = parseDcgmMetrics(text, "src");
  if (s) qFatal("parsed, but should fail: %s", text.c_str());
  return s.error();
}

// Every field on one line, so that two parses can be compared whole.
std::string dump(const DcgmScrape& s) {
  std::ostringstream out;
  auto opt = [&](const char* name, const auto& v) {
    out << ' ' << name << '=';
    if (v)
      out << *v;
    else
      out << '-';
  };
  for (const DcgmGpuReading& r : s.gpus) {
    out << r.hostname << '|' << r.gpu << '|' << r.migInstance << '|' << r.migProfile << '|'
        << r.uuid << '|' << r.pciBusId << '|' << r.modelName << '|' << r.pod << '|'
        << r.podNamespace << '|' << r.container << '|' << r.xidMessage;
    opt("util", r.util);
    opt("gr", r.grEngineActive);
    opt("sm", r.smActive);
    opt("tensor", r.tensorActive);
    opt("dram", r.dramActive);
    opt("fbUsed", r.fbUsedMiB);
    opt("fbFree", r.fbFreeMiB);
    opt("mem", r.memoryUsed);
    opt("power", r.powerWatts);
    opt("temp", r.temperatureC);
    opt("xid", r.xid);
    out << '\n';
  }
  for (const std::string& w : s.warnings) out << "warning: " << w << '\n';
  return out.str();
}

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

}  // namespace

// An optional that must hold `expected` (QCOMPARE compares doubles to about 12 digits).
#define CHECK_VALUE(opt, expected)                                 \
  do {                                                             \
    QVERIFY2((opt).has_value(), #opt " is empty");                 \
    QCOMPARE(*(opt), static_cast<decltype(*(opt) + 0)>(expected)); \
  } while (0)

class TestDcgmMetrics : public QObject {
  Q_OBJECT

 private slots:
  void referenceSample() {
    const DcgmScrape s = parse(readFixture("reference-sample.prom"), "gpu-node-07:9400");
    QVERIFY2(s.warnings.empty(), s.warnings.empty() ? "" : s.warnings.front().c_str());
    QCOMPARE(s.gpus.size(), size_t{3});

    // GPU 0: whole, training pod.
    const DcgmGpuReading& g0 = s.gpus[0];
    QCOMPARE(q(g0.hostname), QStringLiteral("gpu-node-07"));
    QCOMPARE(g0.gpu, 0);
    QCOMPARE(g0.migInstance, -1);
    QVERIFY(!g0.isMigInstance());
    QCOMPARE(q(g0.migProfile), QString());
    QCOMPARE(q(g0.uuid), QStringLiteral("GPU-5b0e3c1a-7d24-4f6b-9a31-2c8e4d7f9b10"));
    QCOMPARE(q(g0.pciBusId), QStringLiteral("00000000:18:00.0"));
    QCOMPARE(q(g0.modelName), QStringLiteral("NVIDIA H100 80GB HBM3"));
    QCOMPARE(q(g0.pod), QStringLiteral("llm-train-0"));
    QCOMPARE(q(g0.podNamespace), QStringLiteral("research"));
    QCOMPARE(q(g0.container), QStringLiteral("trainer"));
    CHECK_VALUE(g0.util, 0.94);  // 94 %
    CHECK_VALUE(g0.grEngineActive, 0.963118);
    CHECK_VALUE(g0.smActive, 0.701554);
    CHECK_VALUE(g0.tensorActive, 0.388020);
    QVERIFY(!g0.dramActive);
    CHECK_VALUE(g0.fbUsedMiB, 71321);
    QVERIFY(!g0.fbFreeMiB);
    QVERIFY(!g0.memoryUsed);  // FB_FREE is not in the sample
    CHECK_VALUE(g0.powerWatts, 612.457);
    CHECK_VALUE(g0.temperatureC, 61);
    CHECK_VALUE(g0.xid, 0);
    QCOMPARE(q(g0.xidMessage), QStringLiteral("No Error"));

    // GPU 1, GI 2 (3g.40gb): serving pod; no GPU_UTIL under MIG, no temperature series.
    const DcgmGpuReading& gi2 = s.gpus[1];
    QCOMPARE(q(gi2.hostname), QStringLiteral("gpu-node-07"));
    QCOMPARE(gi2.gpu, 1);
    QCOMPARE(gi2.migInstance, 2);
    QVERIFY(gi2.isMigInstance());
    QCOMPARE(q(gi2.migProfile), QStringLiteral("3g.40gb"));
    QCOMPARE(q(gi2.uuid), QStringLiteral("GPU-c41d8a77-0e5f-4b32-8f19-6a7e2b3c9d01"));
    QCOMPARE(q(gi2.pciBusId), QStringLiteral("00000000:2A:00.0"));
    QCOMPARE(q(gi2.modelName), QStringLiteral("NVIDIA H100 80GB HBM3"));
    QCOMPARE(q(gi2.pod), QStringLiteral("vllm-7b-5d9c7f-x2k4q"));
    QCOMPARE(q(gi2.podNamespace), QStringLiteral("inference"));
    QCOMPARE(q(gi2.container), QStringLiteral("vllm"));
    QVERIFY(!gi2.util);
    CHECK_VALUE(gi2.grEngineActive, 0.412907);
    QVERIFY(!gi2.smActive);
    QVERIFY(!gi2.tensorActive);
    QVERIFY(!gi2.dramActive);
    CHECK_VALUE(gi2.fbUsedMiB, 30412);
    QVERIFY(!gi2.fbFreeMiB);
    QVERIFY(!gi2.memoryUsed);
    CHECK_VALUE(gi2.powerWatts, 301.22);
    QVERIFY(!gi2.temperatureC);
    QVERIFY(!gi2.xid);
    QCOMPARE(q(gi2.xidMessage), QString());

    // GPU 1, GI 11 (1g.10gb): idle, no pod labels.
    const DcgmGpuReading& gi11 = s.gpus[2];
    QCOMPARE(q(gi11.hostname), QStringLiteral("gpu-node-07"));
    QCOMPARE(gi11.gpu, 1);
    QCOMPARE(gi11.migInstance, 11);
    QCOMPARE(q(gi11.migProfile), QStringLiteral("1g.10gb"));
    QCOMPARE(q(gi11.uuid), QStringLiteral("GPU-c41d8a77-0e5f-4b32-8f19-6a7e2b3c9d01"));
    QCOMPARE(q(gi11.pciBusId), QStringLiteral("00000000:2A:00.0"));
    QCOMPARE(q(gi11.pod), QString());
    QCOMPARE(q(gi11.podNamespace), QString());
    QCOMPARE(q(gi11.container), QString());
    QVERIFY(!gi11.util);
    CHECK_VALUE(gi11.grEngineActive, 0.0);
    QVERIFY(!gi11.smActive);
    QVERIFY(!gi11.tensorActive);
    CHECK_VALUE(gi11.fbUsedMiB, 0);
    QVERIFY(!gi11.memoryUsed);
    QVERIFY(!gi11.powerWatts);
    CHECK_VALUE(gi11.temperatureC, 48);
    QVERIFY(!gi11.xid);
  }

  // Windows-saved scrapes: CRLF endings and a byte order mark change nothing.
  void crlfAndByteOrderMark() {
    const std::string lf = readFixture("reference-sample.prom");
    std::string crlf = "\xEF\xBB\xBF";
    for (char c : lf) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
    QCOMPARE(q(dump(parse(crlf))), q(dump(parse(lf))));
  }

  void twoGpusWithMig() {
    const std::string path = fixturePath("dgx-b-mig.prom");
    auto read = readDcgmMetricsFile(path);
    QVERIFY2(read.ok(), read.ok() ? "" : read.error().str().c_str());
    const DcgmScrape& s = *read;
    QCOMPARE(q(dump(s)), q(dump(parse(readFixture("dgx-b-mig.prom"), path))));
    QCOMPARE(s.gpus.size(), size_t{3});

    const DcgmGpuReading& g0 = s.gpus[0];
    QCOMPARE(q(g0.hostname), QStringLiteral("dgx-b"));  // the lowercase key
    QCOMPARE(g0.gpu, 0);
    QCOMPARE(g0.migInstance, -1);
    QCOMPARE(q(g0.migProfile), QString());
    QCOMPARE(q(g0.uuid), QStringLiteral("GPU-3f1c9a20-5b7e-4d18-a6c2-0e9d84b1f7a3"));
    QCOMPARE(q(g0.pciBusId), QStringLiteral("00000000:07:00.0"));
    QCOMPARE(q(g0.modelName), QStringLiteral("NVIDIA A100-SXM4-80GB"));
    QCOMPARE(q(g0.pod), QStringLiteral("bert-finetune-0"));
    QCOMPARE(q(g0.podNamespace), QStringLiteral("nlp"));
    QCOMPARE(q(g0.container), QStringLiteral("bert"));
    CHECK_VALUE(g0.util, 0.5);
    CHECK_VALUE(g0.grEngineActive, 0.5);
    CHECK_VALUE(g0.smActive, 0.25);
    CHECK_VALUE(g0.tensorActive, 0.125);  // the series with a trailing comma and a tab
    CHECK_VALUE(g0.dramActive, 0.875);
    CHECK_VALUE(g0.fbUsedMiB, 20480);
    CHECK_VALUE(g0.fbFreeMiB, 61440);
    CHECK_VALUE(g0.memoryUsed, 0.25);   // 20480 / (20480 + 61440)
    CHECK_VALUE(g0.powerWatts, 260.0);  // the later of two series
    CHECK_VALUE(g0.temperatureC, 55);
    CHECK_VALUE(g0.xid, 13);
    // err_msg="Graphics Engine Exception: \"ctx 7\" in C:\\jobs\nsee dmesg"
    QCOMPARE(q(g0.xidMessage),
             QStringLiteral("Graphics Engine Exception: \"ctx 7\" in C:\\jobs\nsee dmesg"));

    const DcgmGpuReading& gi1 = s.gpus[1];
    QCOMPARE(q(gi1.hostname), QStringLiteral("dgx-b"));
    QCOMPARE(gi1.gpu, 1);
    QCOMPARE(gi1.migInstance, 1);
    QCOMPARE(q(gi1.migProfile), QStringLiteral("3g.40gb"));
    QCOMPARE(q(gi1.uuid), QStringLiteral("GPU-8d24e6b1-2c9f-4a07-b3e5-71f0c6a9d248"));
    QCOMPARE(q(gi1.pciBusId), QStringLiteral("00000000:0F:00.0"));
    QCOMPARE(q(gi1.modelName), QStringLiteral("NVIDIA A100-SXM4-80GB"));
    QCOMPARE(q(gi1.pod), QStringLiteral("triton-6f7d9-abcde"));
    QCOMPARE(q(gi1.podNamespace), QStringLiteral("serving"));
    QCOMPARE(q(gi1.container), QStringLiteral("triton"));
    QVERIFY(!gi1.util);
    CHECK_VALUE(gi1.grEngineActive, 0.75);
    CHECK_VALUE(gi1.smActive, 1.125);  // above 1 on MIG (DCGM #152): kept as reported
    QVERIFY(!gi1.tensorActive);
    QVERIFY(!gi1.dramActive);
    CHECK_VALUE(gi1.fbUsedMiB, 10000);
    CHECK_VALUE(gi1.fbFreeMiB, 30000);
    CHECK_VALUE(gi1.memoryUsed, 0.25);  // 10000 / 40000
    CHECK_VALUE(gi1.powerWatts, 180.25);
    CHECK_VALUE(gi1.temperatureC, 47);
    CHECK_VALUE(gi1.xid, 0);
    QCOMPARE(q(gi1.xidMessage), QStringLiteral("No Error"));

    const DcgmGpuReading& gi5 = s.gpus[2];
    QCOMPARE(q(gi5.hostname), QStringLiteral("dgx-b"));
    QCOMPARE(gi5.gpu, 1);
    QCOMPARE(gi5.migInstance, 5);
    QCOMPARE(q(gi5.migProfile), QStringLiteral("2g.20gb"));
    QCOMPARE(q(gi5.uuid), QStringLiteral("GPU-8d24e6b1-2c9f-4a07-b3e5-71f0c6a9d248"));
    QCOMPARE(q(gi5.pod), QString());
    QVERIFY(!gi5.util);
    QVERIFY(!gi5.grEngineActive);  // NaN
    QVERIFY(!gi5.smActive);
    CHECK_VALUE(gi5.fbUsedMiB, 0);
    CHECK_VALUE(gi5.fbFreeMiB, 19968);
    CHECK_VALUE(gi5.memoryUsed, 0.0);
    CHECK_VALUE(gi5.powerWatts, 180.25);
    QVERIFY(!gi5.temperatureC);  // +Inf
    QVERIFY(!gi5.xid);

    QCOMPARE(s.warnings.size(), size_t{2});
    QCOMPARE(q(s.warnings[0]),
             q(path + ":40: DCGM_FI_DEV_POWER_USAGE for gpu 0 on dgx-b repeats line 37; the "
                      "later value wins"));
    QCOMPARE(q(s.warnings[1]),
             q(path + ":45: DCGM_FI_DEV_GPU_TEMP for gpu 1 instance 5 on dgx-b is inf; ignored"));
  }

  void missingFile() {
    auto s = readDcgmMetricsFile("/nonexistent/scrape.prom");
    QVERIFY(!s.ok());
    QCOMPARE(q(s.error().where.file), QStringLiteral("/nonexistent/scrape.prom"));
  }

  // Rows group by (hostname, gpu, GPU_I_ID), ordered by those; old label spellings are read.
  void grouping() {
    const DcgmScrape s = parse(
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",uuid=\"GPU-old\",Hostname=\"n1\",pod_name=\"p\","
        "pod_namespace=\"ns\",container_name=\"c\"} 40\n"
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-new\",hostname=\"n2\"} 41\n"
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-nohost\"} 42\n"
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"13\",Hostname=\"n1\"} "
        "44\n"
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",GPU_I_PROFILE=\"1g.10gb\",GPU_I_ID=\"7\",Hostname=\"n1\"} "
        "43\n"
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"10\",Hostname=\"n1\"} 45\n");
    QVERIFY(s.warnings.empty());
    QCOMPARE(s.gpus.size(), size_t{6});
    const struct {
      const char* host;
      int gpu, instance;
      double temp;
    } expected[] = {{"", 0, -1, 42},   {"n1", 0, -1, 40},  {"n1", 0, 7, 43},
                    {"n1", 0, 13, 44}, {"n1", 10, -1, 45}, {"n2", 0, -1, 41}};
    for (size_t i = 0; i < s.gpus.size(); ++i) {
      QCOMPARE(q(s.gpus[i].hostname), QString::fromLatin1(expected[i].host));
      QCOMPARE(s.gpus[i].gpu, expected[i].gpu);
      QCOMPARE(s.gpus[i].migInstance, expected[i].instance);
      CHECK_VALUE(s.gpus[i].temperatureC, expected[i].temp);
    }
    QCOMPARE(q(s.gpus[0].uuid), QStringLiteral("GPU-nohost"));
    QCOMPARE(q(s.gpus[1].uuid), QStringLiteral("GPU-old"));
    QCOMPARE(q(s.gpus[1].pod), QStringLiteral("p"));
    QCOMPARE(q(s.gpus[1].podNamespace), QStringLiteral("ns"));
    QCOMPARE(q(s.gpus[1].container), QStringLiteral("c"));
    QCOMPARE(q(s.gpus[2].migProfile), QStringLiteral("1g.10gb"));
    QCOMPARE(q(s.gpus[5].uuid), QStringLiteral("GPU-new"));
  }

  // A row's time is its oldest sample's timestamp; rows without timestamps have none, and
  // metrics the parser does not use do not count.
  void timestamps() {
    const DcgmScrape s = parse(
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",Hostname=\"n1\"} 40 1700000060000\n"
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"n1\"} 50 1700000000500\n"
        "DCGM_FI_DEV_UNUSED{gpu=\"0\",Hostname=\"n1\"} 1 1600000000000\n"
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"2\",Hostname=\"n1\"} 40 1600000000000\n"
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"2\",Hostname=\"n1\"} 42 1700000000000\n"
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",Hostname=\"n1\"} 41\n");
    QCOMPARE(s.gpus.size(), size_t{3});
    QCOMPARE(s.gpus[0].sampledMs.value_or(-1), int64_t{1700000000500});
    QVERIFY(!s.gpus[1].sampledMs);
    // A repeated series: the later value wins, and so does its timestamp.
    QCOMPARE(s.gpus[2].sampledMs.value_or(-1), int64_t{1700000000000});
  }

  // Well-formed but unusable data is reported, with its line, and left out.
  void warnings() {
    const DcgmScrape s = parse(
        "some_exporter_metric{gpu=\"x\"} 1\n"                        // 1: unknown: ignored
        "DCGM_FI_DEV_GPU_TEMP 50\n"                                  // 2
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"GPU-0\"} 50\n"                   // 3
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",GPU_I_ID=\"x\"} 50\n"        // 4
        "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-a\"} 50\n"        // 5
        "DCGM_FI_DEV_FB_USED{gpu=\"0\",UUID=\"GPU-b\"} 10\n"         // 6
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\"} -5\n"                    // 7
        "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\",err_msg=\"half\"} 13.5\n"  // 8
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} -Inf\n"                     // 9
        "DCGM_FI_DEV_FB_USED{gpu=\"0\"} NaN\n"                       // 10
        "DCGM_FI_DEV_GPU_TEMP{gpu=\" 1\"} 50\n",                     // 11
        "w");
    QCOMPARE(s.gpus.size(), size_t{1});
    const DcgmGpuReading& r = s.gpus[0];
    QCOMPARE(r.gpu, 0);
    QCOMPARE(q(r.uuid), QStringLiteral("GPU-a"));  // the first one seen
    CHECK_VALUE(r.temperatureC, 50);
    QVERIFY(!r.fbUsedMiB);  // the later NaN wins over 10
    QVERIFY(!r.powerWatts);
    QVERIFY(!r.xid);
    QCOMPARE(q(r.xidMessage), QString());
    QVERIFY(!r.util);

    const std::vector<std::string> expected = {
        "w:2: DCGM_FI_DEV_GPU_TEMP has no gpu label; ignored",
        "w:3: DCGM_FI_DEV_GPU_TEMP has gpu label 'GPU-0', not a device index; ignored",
        "w:4: DCGM_FI_DEV_GPU_TEMP has GPU_I_ID 'x', not an instance id; ignored",
        "w:6: UUID 'GPU-b' differs from 'GPU-a' seen earlier for gpu 0; keeping the first",
        "w:7: DCGM_FI_DEV_POWER_USAGE for gpu 0 is -5; ignored",
        "w:8: DCGM_FI_DEV_XID_ERRORS for gpu 0 is 13.5, not an Xid number; ignored",
        "w:9: DCGM_FI_DEV_GPU_UTIL for gpu 0 is -inf; ignored",
        "w:10: DCGM_FI_DEV_FB_USED for gpu 0 repeats line 6; the later value wins",
        "w:11: DCGM_FI_DEV_GPU_TEMP has gpu label ' 1', not a device index; ignored",
    };
    QCOMPARE(s.warnings.size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) QCOMPARE(q(s.warnings[i]), q(expected[i]));
  }

  void nothingToRead() {
    for (const char* text : {"", "\n\n", "# HELP up Whether the target is up.\nup 1\n"}) {
      const DcgmScrape s = parse(text, "node7:9400");
      QVERIFY(s.gpus.empty());
      QCOMPARE(s.warnings.size(), size_t{1});
      QCOMPARE(q(s.warnings[0]), QStringLiteral("node7:9400: no DCGM GPU series found"));
    }
  }

  // The corners of the format that a parser must take, not reject.
  void lenientSyntax() {
    const DcgmScrape s = parse(
        "# a free-form comment, not HELP or TYPE\n"
        "#HELP DCGM_FI_DEV_GPU_TEMP text with \\\\ and \\n escapes\n"
        "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
        "\t \n"
        "  DCGM_FI_DEV_GPU_TEMP { gpu = \"0\" , Hostname=\"h\" , } 1.5e1 -1000\n"
        "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\",Hostname=\"h\"}300\n"
        "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\",Hostname=\"h\"}\t+75\t1715500000000\n"
        "job:dcgm_power:avg5m{gpu=\"0\"} 1\n"
        "no_labels 2\n"
        "empty_labels{} 2\n"
        "histogram_bucket{le=\"+Inf\"} +Inf\n"
        "minus -Inf\n"
        "lower_case_nan nan\n"
        "# EOF\n");
    QVERIFY(s.warnings.empty());
    QCOMPARE(s.gpus.size(), size_t{1});
    QCOMPARE(q(s.gpus[0].hostname), QStringLiteral("h"));
    CHECK_VALUE(s.gpus[0].temperatureC, 15);
    CHECK_VALUE(s.gpus[0].powerWatts, 300);
    CHECK_VALUE(s.gpus[0].util, 0.75);
  }

  void errors_data() {
    QTest::addColumn<QByteArray>("line");  // bytes: one case is not UTF-8
    QTest::addColumn<int>("column");
    QTest::addColumn<QString>("message");
    auto row = [](const char* name, const char* line, int column, const char* message) {
      QTest::newRow(name) << QByteArray(line) << column << QString::fromUtf8(message);
    };
    row("unterminated label", "m{gpu=\"0\",err_msg=\"oops} 1", 19,
        "unterminated value of label 'err_msg'");
    row("unterminated after escaped quote", "m{a=\"x\\\"} 1", 5, "unterminated value of label 'a'");
    row("unterminated at a backslash", "m{a=\"x\\", 5, "unterminated value of label 'a'");
    row("missing value", "m{gpu=\"0\"}", 11, "missing value after the metric name and labels");
    row("missing value after blanks", "m   ", 5, "missing value");
    row("bad number", "m{gpu=\"0\"} 12abc", 12, "bad value '12abc': not a number");
    row("decimal comma", "m 1,5", 3, "bad value '1,5': not a number");
    row("two signs", "m +-1", 3, "bad value '+-1': not a number");
    row("quoted value", "m \"1\"", 3, "bad value '\"1\"': not a number");
    row("junk after the name", "m-x 1", 2, "bad value '-x': not a number");
    row("bad timestamp", "m 1 1.5", 5, "bad timestamp '1.5'");
    row("text after the timestamp", "m 1 1000 extra", 10, "unexpected text after the timestamp");
    row("unknown escape", "m{a=\"\\t\"} 1", 6, "label 'a': unknown escape '\\t'");
    row("no equals sign", "m{a \"x\"} 1", 5, "expected '=' after label 'a'");
    row("unquoted label value", "m{a=x} 1", 5, "expected '\"' to open label 'a'");
    row("no comma between labels", "m{a=\"x\" b=\"y\"} 1", 9,
        "expected ',' or '}' after label 'a'");
    row("unclosed labels", "m{a=\"x\"", 8, "expected ',' or '}' after label 'a'");
    row("label twice", "m{a=\"x\",a=\"y\"} 1", 9, "label 'a' given twice");
    row("bad label name", "m{1a=\"x\"} 1", 3, "expected a label name or '}'");
    row("colon in label name", "m{a:b=\"x\"} 1", 4, "expected '=' after label 'a'");
    row("no metric name", "{gpu=\"0\"} 1", 1, "expected a metric name");
    row("html", "<html><body>404</body></html>", 1, "expected a metric name");
    row("digit first", "9m 1", 1, "expected a metric name");
    row("label value not UTF-8", "m{a=\"\xff\"} 1", 5, "label 'a': value is not UTF-8");
    row("unknown TYPE", "# TYPE m gaug", 10, "# TYPE m: expected counter, gauge");
    row("TYPE without type", "# TYPE m", 9, "# TYPE m: expected counter");
    row("TYPE with extra text", "# TYPE m gauge extra", 16,
        "# TYPE m: unexpected text after the type");
    row("TYPE without name", "# TYPE", 7, "# TYPE needs a valid metric name");
    row("HELP with bad name", "# HELP 9x doc", 8, "# HELP needs a valid metric name");
  }

  // The bad line comes third, after a comment and a good series, and ends in CRLF.
  void errors() {
    QFETCH(QByteArray, line);
    QFETCH(int, column);
    QFETCH(QString, message);
    const Error e =
        parseError("# TYPE m gauge\r\nm{gpu=\"0\"} 1\r\n" +
                   std::string(line.constData(), static_cast<size_t>(line.size())) + "\r\nm 2\r\n");
    QCOMPARE(q(e.where.file), QStringLiteral("src"));
    QCOMPARE(e.where.line, 3);
    QCOMPARE(e.where.column, column);
    QVERIFY2(q(e.message).startsWith(message), e.message.c_str());
    QVERIFY2(e.str().rfind("src:3:" + std::to_string(column) + ": ", 0) == 0, e.str().c_str());
  }

  // Random damage to a real scrape must give a result or a located error, never a crash.
  void garbageNeverCrashes() {
    const std::string sample = readFixture("dgx-b-mig.prom");
    auto check = [](const std::string& text) {
      auto s = parseDcgmMetrics(text, "fuzz");
      if (s.ok()) {
        for (const DcgmGpuReading& r : s->gpus) {
          for (const auto* v :
               {&r.util, &r.grEngineActive, &r.smActive, &r.tensorActive, &r.dramActive,
                &r.fbUsedMiB, &r.fbFreeMiB, &r.memoryUsed, &r.powerWatts, &r.temperatureC})
            if (*v && (!std::isfinite(**v) || **v < 0)) return false;
        }
        return true;
      }
      return s.error().where.file == "fuzz" && s.error().where.line >= 1 &&
             s.error().where.column >= 1 && !s.error().message.empty();
    };
    for (size_t n = 0; n <= sample.size(); n += 7)
      QVERIFY2(check(sample.substr(0, n)), qPrintable(QString::number(n)));
    QRandomGenerator rng(20240512);
    for (int i = 0; i < 2000; ++i) {
      std::string text = sample;
      for (int k = rng.bounded(1, 6); k > 0; --k)
        text[static_cast<size_t>(rng.bounded(static_cast<int>(text.size())))] =
            static_cast<char>(rng.bounded(256));
      QVERIFY(check(text));
    }
  }
};

QTEST_GUILESS_MAIN(TestDcgmMetrics)
#include "tst_dcgm_metrics.moc"
