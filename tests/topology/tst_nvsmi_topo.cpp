// Import of `nvidia-smi topo -m` text: the reference examples, the older DGX A100 form,
// terminal/CRLF noise, precise errors for malformed input, and robustness against garbage.
#include <QFile>
#include <QRandomGenerator>
#include <QtTest>

#include <string>
#include <vector>

#include "topology/nvsmi_topo.h"

using namespace tessera;

namespace tessera {
// Lets QCOMPARE print link cells ("NV18", "PXB") when a comparison fails.
char* toString(const GpuLink& l) {
  return qstrdup(l.str().c_str());
}
}  // namespace tessera

namespace {

std::string readFixture(const char* name) {
  QFile f(QStringLiteral(TESSERA_TEST_DATA "/topo/") + QString::fromLatin1(name));
  if (!f.open(QIODevice::ReadOnly)) qFatal("cannot open fixture %s", name);
  const QByteArray bytes = f.readAll();
  return std::string(bytes.constData(), static_cast<size_t>(bytes.size()));
}

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (;;) {
    const size_t nl = text.find('\n', start);
    lines.push_back(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) return lines;
    start = nl + 1;
  }
}

std::string joinLines(const std::vector<std::string>& lines) {
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += (i ? "\n" : "") + lines[i];
  return out;
}

std::vector<std::string> fieldsOf(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    const size_t tab = line.find('\t', start);
    fields.push_back(
        line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

std::string joinFields(const std::vector<std::string>& fields) {
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) out += (i ? "\t" : "") + fields[i];
  return out;
}

// Line numbers are 1-based like the parser's; field 0 is the row label.
std::string withCell(const std::string& text, size_t line, size_t field, const std::string& value) {
  auto lines = linesOf(text);
  auto fields = fieldsOf(lines[line - 1]);
  fields[field] = value;
  lines[line - 1] = joinFields(fields);
  return joinLines(lines);
}

std::string withoutCell(const std::string& text, size_t line, size_t field) {
  auto lines = linesOf(text);
  auto fields = fieldsOf(lines[line - 1]);
  fields.erase(fields.begin() + static_cast<std::ptrdiff_t>(field));
  lines[line - 1] = joinFields(fields);
  return joinLines(lines);
}

std::string withLine(const std::string& text, size_t line, const std::string& value) {
  auto lines = linesOf(text);
  lines[line - 1] = value;
  return joinLines(lines);
}

std::string withoutLine(const std::string& text, size_t line) {
  auto lines = linesOf(text);
  lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(line - 1));
  return joinLines(lines);
}

std::string lineAt(const std::string& text, size_t line) {
  return linesOf(text)[line - 1];
}

GpuLink nv(int links) {
  return GpuLink{LinkKind::NVLink, static_cast<uint8_t>(links)};
}
GpuLink link(LinkKind kind) {
  return GpuLink{kind, 0};
}

// Fails the test (instead of aborting it) when the text does not parse.
#define PARSE_OK(var, text)                                                                     \
  auto var##_result = parseNvidiaSmiTopo((text), "topo.txt");                                   \
  QVERIFY2(                                                                                     \
      var##_result.ok(),                                                                        \
      var##_result.ok() ? "" : qPrintable(QString::fromStdString(var##_result.error().str()))); \
  const TopoMatrix& var = *var##_result

// Example A line numbers: header 1, GPU0..GPU7 on 2..9, NIC0..NIC11 on 10..21.
constexpr size_t kGpuLine0 = 2;
constexpr size_t kNicLine0 = 10;

}  // namespace

Q_DECLARE_METATYPE(std::string)

class TstNvsmiTopo : public QObject {
  Q_OBJECT

 private slots:
  void dgxH100Links();
  void dgxH100NicNamesFromLegend();
  void dgxH100Affinity();
  void pcieServerLinks();
  void olderFormatWithoutLegend();
  void ansiAndCrlfParseLikePlainText();
  void toleratesNoiseAndEmptyCpuAffinity();
  void malformedInputReportsLineAndCause_data();
  void malformedInputReportsLineAndCause();
  void unknownLinkNamesColumnAndFile();
  void impossibleInputReportsExactLocation_data();
  void impossibleInputReportsExactLocation();
  void numaAndLegendBoundsStillParse();
  void everyPrefixReturnsWithoutCrash();
  void mutatedInputKeepsConsistentShapes();
};

void TstNvsmiTopo::dgxH100Links() {
  PARSE_OK(m, readFixture("dgx-h100.txt"));
  QCOMPARE(m.gpus.size(), size_t{8});
  QCOMPARE(m.gpus.front(), std::string("GPU0"));
  QCOMPARE(m.gpus.back(), std::string("GPU7"));
  QCOMPARE(m.gpuGpu.size(), size_t{8});
  QCOMPARE(m.gpuGpu[0].size(), size_t{8});
  QCOMPARE(m.gpuNic.size(), size_t{8});
  QCOMPARE(m.gpuNic[0].size(), size_t{12});
  QCOMPARE(m.nicNic.size(), size_t{12});
  QCOMPARE(m.gpuGpu[0][0], link(LinkKind::Self));
  QCOMPARE(m.gpuGpu[0][1], nv(18));
  QCOMPARE(m.gpuGpu[7][3], nv(18));
  QCOMPARE(m.gpuNic[0][0], link(LinkKind::PXB));
  QCOMPARE(m.gpuNic[0][1], link(LinkKind::NODE));
  QCOMPARE(m.gpuNic[0][6], link(LinkKind::SYS));
  QCOMPARE(m.gpuNic[1][3], link(LinkKind::PXB));
  QCOMPARE(m.gpuNic[5][9], link(LinkKind::PXB));
  QCOMPARE(m.nicNic[1][2], link(LinkKind::PIX));
  QCOMPARE(m.nicNic[7][8], link(LinkKind::PIX));
  QCOMPARE(m.nicNic[0][6], link(LinkKind::SYS));
  QCOMPARE(m.nicNic[11][11], link(LinkKind::Self));
}

void TstNvsmiTopo::dgxH100NicNamesFromLegend() {
  PARSE_OK(m, readFixture("dgx-h100.txt"));
  QCOMPARE(m.nics.size(), size_t{12});
  QCOMPARE(m.nics[0], std::string("mlx5_0"));
  QCOMPARE(m.nics[10], std::string("mlx5_10"));
  QCOMPARE(m.nics[11], std::string("mlx5_11"));

  // Proves the names come from the legend, not from the column headers.
  auto renamed = readFixture("dgx-h100.txt");
  renamed.replace(renamed.find("NIC3: mlx5_3"), 12, "NIC3: ib_storage0");
  PARSE_OK(edited, renamed);
  QCOMPARE(edited.nics[3], std::string("ib_storage0"));
}

void TstNvsmiTopo::dgxH100Affinity() {
  PARSE_OK(m, readFixture("dgx-h100.txt"));
  QCOMPARE(m.cpuAffinity.size(), size_t{8});
  QCOMPARE(m.cpuAffinity[0], std::string("0-55,112-167"));
  QCOMPARE(m.cpuAffinity[3], std::string("0-55,112-167"));
  QCOMPARE(m.cpuAffinity[4], std::string("56-111,168-223"));
  QCOMPARE(m.cpuAffinity[7], std::string("56-111,168-223"));
  QCOMPARE(m.numaAffinity, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
}

void TstNvsmiTopo::pcieServerLinks() {
  PARSE_OK(m, readFixture("pcie-8gpu.txt"));
  QCOMPARE(m.gpus.size(), size_t{8});
  QCOMPARE(m.nics, (std::vector<std::string>{"mlx5_0", "mlx5_1"}));
  QCOMPARE(m.gpuGpu[0][1], link(LinkKind::PIX));
  QCOMPARE(m.gpuGpu[0][2], link(LinkKind::NODE));
  QCOMPARE(m.gpuGpu[0][4], link(LinkKind::SYS));
  QCOMPARE(m.gpuGpu[6][7], link(LinkKind::PIX));
  QCOMPARE(m.gpuNic[0][0], link(LinkKind::PIX));
  QCOMPARE(m.gpuNic[2][0], link(LinkKind::NODE));
  QCOMPARE(m.gpuNic[4][1], link(LinkKind::PIX));
  QCOMPARE(m.gpuNic[6][1], link(LinkKind::NODE));
  QCOMPARE(m.nicNic[0][1], link(LinkKind::SYS));
  QCOMPARE(m.cpuAffinity[0], std::string("0-31,64-95"));
  QCOMPARE(m.cpuAffinity[7], std::string("32-63,96-127"));
  QCOMPARE(m.numaAffinity, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
}

void TstNvsmiTopo::olderFormatWithoutLegend() {
  const auto text = readFixture("dgx-a100-old.txt");
  QVERIFY(text.find("GPU NUMA ID") == std::string::npos);
  QVERIFY(text.find("NIC Legend") == std::string::npos);
  PARSE_OK(m, text);
  QCOMPARE(m.gpus.size(), size_t{8});
  QCOMPARE(m.nics, (std::vector<std::string>{"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4",
                                             "mlx5_5", "mlx5_6", "mlx5_7"}));
  for (size_t a = 0; a < 8; ++a)
    for (size_t b = 0; b < 8; ++b) QCOMPARE(m.gpuGpu[a][b], a == b ? link(LinkKind::Self) : nv(12));
  QCOMPARE(m.numaAffinity, (std::vector<int>{3, 3, 1, 1, 7, 7, 5, 5}));
  QCOMPARE(m.cpuAffinity[0], std::string("48-63,176-191"));
  QCOMPARE(m.cpuAffinity[6], std::string("80-95,208-223"));
  QCOMPARE(m.gpuNic[0][0], link(LinkKind::PXB));
  QCOMPARE(m.gpuNic[1][1], link(LinkKind::PXB));
  QCOMPARE(m.gpuNic[0][2], link(LinkKind::NODE));
  QCOMPARE(m.gpuNic[0][4], link(LinkKind::SYS));
  QCOMPARE(m.gpuNic[6][7], link(LinkKind::PXB));
  QCOMPARE(m.nicNic[0][1], link(LinkKind::PIX));
}

void TstNvsmiTopo::ansiAndCrlfParseLikePlainText() {
  const auto noisy = readFixture("dgx-h100-ansi-crlf.txt");
  QVERIFY(noisy.find("\x1b[4m\tGPU0") != std::string::npos);
  QVERIFY(noisy.find("\r\n") != std::string::npos);
  PARSE_OK(plain, readFixture("dgx-h100.txt"));
  PARSE_OK(m, noisy);
  QCOMPARE(m.gpus, plain.gpus);
  QCOMPARE(m.nics, plain.nics);
  QCOMPARE(m.gpuGpu, plain.gpuGpu);
  QCOMPARE(m.gpuNic, plain.gpuNic);
  QCOMPARE(m.nicNic, plain.nicNic);
  QCOMPARE(m.cpuAffinity, plain.cpuAffinity);
  QCOMPARE(m.numaAffinity, plain.numaAffinity);
  QCOMPARE(m.nics[11], std::string("mlx5_11"));
}

void TstNvsmiTopo::toleratesNoiseAndEmptyCpuAffinity() {
  auto text = readFixture("pcie-8gpu.txt");
  text = withCell(text, 2, 11, "");                   // GPU0: restricted cpuset in a container
  text = withCell(text, 3, 12, "N/A");                // GPU1: NUMA affinity unknown
  text = withCell(text, 4, 4, "\x1b[1mPIX\x1b[0m");   // GPU2->GPU3 in colour
  text = withLine(text, 5, lineAt(text, 5) + "   ");  // trailing spaces
  text = withoutCell(text, 6, 13);  // GPU4 without the empty field before GPU NUMA ID
  text = withLine(text, 7, lineAt(text, 7) + "\t\t");  // GPU5 with surplus trailing TABs
  text = "\n  \n" + text;                              // blank lines before the header
  PARSE_OK(m, text);
  QCOMPARE(m.cpuAffinity[0], std::string());
  QCOMPARE(m.cpuAffinity[1], std::string("0-31,64-95"));
  QCOMPARE(m.numaAffinity[0], 0);
  QCOMPARE(m.numaAffinity[1], -1);
  QCOMPARE(m.gpuGpu[2][3], link(LinkKind::PIX));
  QCOMPARE(m.numaAffinity[3], 0);
  QCOMPARE(m.numaAffinity[4], 1);
  QCOMPARE(m.cpuAffinity[4], std::string("32-63,96-127"));
  QCOMPARE(m.numaAffinity[5], 1);
  QCOMPARE(m.gpus.size(), size_t{8});
}

void TstNvsmiTopo::malformedInputReportsLineAndCause_data() {
  QTest::addColumn<std::string>("text");
  QTest::addColumn<int>("line");
  QTest::addColumn<QString>("message");
  const auto a = readFixture("dgx-h100.txt");
  const auto old = readFixture("dgx-a100-old.txt");
  const size_t gpu1 = kGpuLine0 + 1;
  const size_t gpu3 = kGpuLine0 + 3;
  const size_t gpu4 = kGpuLine0 + 4;
  const size_t gpu6 = kGpuLine0 + 6;
  const size_t nic2 = kNicLine0 + 2;
  const size_t lastLegendLine = linesOf(a).size() - 1;  // the file ends with a newline

  QTest::newRow("empty") << std::string() << 0 << "no header row found";
  QTest::newRow("binary") << std::string(
                                 "\x7f"
                                 "ELF\x02\x01\x01\0\0\xff\xfe",
                                 11)
                          << 1 << "no header row found";
  QTest::newRow("prose after blank lines")
      << std::string("\n\r\nnvidia-smi: not found\n") << 3 << "no header row found";
  QTest::newRow("header without GPU columns")
      << std::string("\tCPU Affinity\tNUMA Affinity\n") << 1 << "no header row found";
  QTest::newRow("only a header") << lineAt(a, 1) + "\n"
                                 << 1 << "GPU row missing: the header names GPU0";
  QTest::newRow("unknown row label")
      << withCell(a, gpu3, 0, "GPU9") << int(gpu3) << "'GPU9' is not a column of the header";
  QTest::newRow("duplicate row") << withLine(a, gpu4, lineAt(a, gpu3)) << int(gpu4)
                                 << "row GPU3 appears twice (first on line 5)";
  QTest::newRow("GPU row lacks a cell") << withoutCell(a, gpu3, 5) << int(gpu3)
                                        << "row GPU3: wrong number of cells: found 24, expected 25";
  QTest::newRow("NIC row has an extra cell") << withCell(a, nic2, 3, "NODE\tNODE") << int(nic2)
                                             << "row NIC2: wrong number of cells: found 26";
  QTest::newRow("old-format row lacks a cell")
      << withoutCell(old, 4, 9) << 4 << "row GPU2: wrong number of cells: found 18, expected 19";
  QTest::newRow("text in the gap before GPU NUMA ID")
      << withCell(a, gpu3, 23, "7") << int(gpu3)
      << "row GPU3: the field after NUMA Affinity must be empty, found '7'";
  QTest::newRow("unknown link") << withCell(a, gpu1, 5, "NVX") << int(gpu1)
                                << "GPU1 column GPU4: unknown link 'NVX'";
  QTest::newRow("diagonal not X") << withCell(a, gpu3, 4, "NV18") << int(gpu3)
                                  << "GPU3 column GPU3: diagonal cell must be 'X', found 'NV18'";
  QTest::newRow("X off the diagonal") << withCell(a, gpu3, 5, " X ") << int(gpu3)
                                      << "GPU3 column GPU4: 'X' belongs on the diagonal only";
  QTest::newRow("asymmetric, later row edited")
      << withCell(a, gpu4, 2, "SYS") << int(gpu4)
      << "asymmetric GPU matrix: GPU1->GPU4 is NV18 but GPU4->GPU1 is SYS";
  QTest::newRow("asymmetric, earlier row edited")
      << withCell(a, gpu1, 5, "NV12") << int(gpu4)
      << "asymmetric GPU matrix: GPU1->GPU4 is NV12 but GPU4->GPU1 is NV18";
  QTest::newRow("asymmetric GPU-NIC pair")
      << withCell(a, kNicLine0, 2, "PIX") << int(kNicLine0)
      << "asymmetric matrix: GPU1->NIC0 is NODE but NIC0->GPU1 is PIX";
  QTest::newRow("GPU row missing")
      << withoutLine(a, kGpuLine0 + 5) << 1
      << "GPU row missing: the header names GPU5 but no row GPU5 follows";
  QTest::newRow("NIC row missing") << withoutLine(a, kNicLine0 + 11) << 1 << "NIC row missing";
  QTest::newRow("bad cpulist") << withCell(a, gpu6, 21, "56-111,x") << int(gpu6)
                               << "GPU6: bad CPU affinity '56-111,x'";
  QTest::newRow("reversed cpulist range")
      << withCell(a, gpu6, 21, "111-56") << int(gpu6) << "bad CPU affinity '111-56'";
  QTest::newRow("absurd cpulist range")
      << withCell(a, gpu6, 21, "0-2000000000") << int(gpu6) << "bad CPU affinity '0-2000000000'";
  QTest::newRow("bad NUMA affinity")
      << withCell(a, gpu6, 22, "one") << int(gpu6) << "GPU6: bad NUMA affinity 'one'";
  QTest::newRow("legend names a NIC not in the header")
      << withLine(a, lastLegendLine, "  NIC12: mlx5_12") << int(lastLegendLine)
      << "NIC legend names 'NIC12', which is not a NIC column of the header";
  QTest::newRow("legend entry without a name")
      << withLine(a, lastLegendLine, "  NIC11:") << int(lastLegendLine)
      << "NIC legend entry NIC11 has no device name";
  QTest::newRow("duplicate header column")
      << withCell(a, 1, 2, "GPU0") << 1 << "header names GPU0 twice";
}

void TstNvsmiTopo::malformedInputReportsLineAndCause() {
  QFETCH(std::string, text);
  QFETCH(int, line);
  QFETCH(QString, message);
  const auto r = parseNvidiaSmiTopo(text, "node7.topo");
  QVERIFY2(!r.ok(), "malformed input was accepted");
  const QString got = QString::fromStdString(r.error().message);
  QVERIFY2(got.contains(message), qPrintable("message was: " + got));
  QCOMPARE(r.error().where.line, line);
  QCOMPARE(r.error().where.file, std::string("node7.topo"));
}

void TstNvsmiTopo::unknownLinkNamesColumnAndFile() {
  const auto text = withCell(readFixture("dgx-h100.txt"), 3, 5, "NVX");
  const auto r = parseNvidiaSmiTopo(text, "dgx.topo");
  QVERIFY(!r.ok());
  const int column = static_cast<int>(lineAt(text, 3).find("NVX")) + 1;
  QCOMPARE(r.error().where.column, column);
  QCOMPARE(r.error().where.field, std::string("GPU1.GPU4"));
  QCOMPARE(r.error().str(), "dgx.topo:3:" + std::to_string(column) +
                                ": GPU1.GPU4: GPU1 column GPU4: unknown link 'NVX'");
}

// Input no nvidia-smi can print: full "file:line:column: field: message" of each error.
void TstNvsmiTopo::impossibleInputReportsExactLocation_data() {
  QTest::addColumn<std::string>("text");
  QTest::addColumn<QString>("error");
  const auto a = readFixture("dgx-h100.txt");
  const size_t gpu6 = kGpuLine0 + 6;
  const size_t lastLegendLine = linesOf(a).size() - 1;  // NIC11's entry; NIC0's is line 35
  const std::string fourGpus =
      "\tGPU0\tGPU1\tGPU2\tGPU9\tCPU Affinity\tNUMA Affinity\n"
      "GPU0\t X \tNV4\tNV4\tNV4\t0-7\t0\n"
      "GPU1\tNV4\t X \tNV4\tNV4\t0-7\t0\n"
      "GPU2\tNV4\tNV4\t X \tNV4\t0-7\t0\n"
      "GPU9\tNV4\tNV4\tNV4\t X \t0-7\t0\n";

  QTest::newRow("GPU columns skip a number")
      << fourGpus
      << "node7.topo:1:17: GPU9: header column 'GPU9' should be GPU3: GPU columns are numbered "
         "GPU0, GPU1, ... in order";
  QTest::newRow("GPU columns out of order")
      << withCell(withCell(a, 1, 1, "GPU1"), 1, 2, "GPU0")
      << "node7.topo:1:2: GPU1: header column 'GPU1' should be GPU0: GPU columns are numbered";
  QTest::newRow("GPU number beyond any integer")
      << withCell(a, 1, 8, "GPU99999999999999999999")
      << "node7.topo:1:37: GPU99999999999999999999: header column 'GPU99999999999999999999' "
         "should be GPU7";
  QTest::newRow("GPU number with a leading zero")
      << withCell(a, 1, 2, "GPU01")
      << "node7.topo:1:7: GPU01: header column 'GPU01' should be GPU1";
  QTest::newRow("NUMA node above 4095")
      << withCell(a, gpu6, 22, "70000")
      << "node7.topo:8:" + QString::number(lineAt(a, gpu6).find("\t1\t") + 2) +
             ": GPU6.NUMA Affinity: GPU6: bad NUMA affinity '70000' (expected a node number "
             "0-4095 or N/A)";
  QTest::newRow("NUMA node 4096") << withCell(a, gpu6, 22, "4096")
                                  << "node7.topo:8:" +
                                         QString::number(lineAt(a, gpu6).find("\t1\t") + 2) +
                                         ": GPU6.NUMA Affinity: GPU6: bad NUMA affinity '4096'";
  QTest::newRow("NIC legend names a NIC twice")
      << withLine(a, lastLegendLine, "  NIC0: mlx5_0")
      << "node7.topo:46:3: NIC Legend: NIC legend names NIC0 twice (first on line 35)";
  QTest::newRow("NIC legend gives two NICs one name")
      << withLine(a, lastLegendLine, "  NIC11: mlx5_0")
      << "node7.topo:46:3: NIC Legend: NIC legend gives NIC11 the device name 'mlx5_0', which "
         "line 35 already gives another NIC";
}

void TstNvsmiTopo::impossibleInputReportsExactLocation() {
  QFETCH(std::string, text);
  QFETCH(QString, error);
  const auto r = parseNvidiaSmiTopo(text, "node7.topo");
  QVERIFY2(!r.ok(), "impossible input was accepted");
  const QString got = QString::fromStdString(r.error().str());
  QVERIFY2(got.startsWith(error), qPrintable("error was: " + got));
}

// The bounds themselves still parse: GPU NUMA node 4095 and a legend in any order.
void TstNvsmiTopo::numaAndLegendBoundsStillParse() {
  auto text = withCell(readFixture("dgx-h100.txt"), kGpuLine0 + 6, 22, "4095");
  const size_t nic0 = linesOf(text).size() - 12;
  text = withLine(withLine(text, nic0, "  NIC11: mlx5_11"), nic0 + 11, "  NIC0: mlx5_0");
  PARSE_OK(m, text);
  QCOMPARE(m.numaAffinity[6], 4095);
  QCOMPARE(m.nics[0], std::string("mlx5_0"));
  QCOMPARE(m.nics[11], std::string("mlx5_11"));
}

void TstNvsmiTopo::everyPrefixReturnsWithoutCrash() {
  const auto text = readFixture("dgx-h100.txt");
  const size_t lastNicRow = text.find("\nNIC11\t") + 1;
  int accepted = 0;
  for (size_t n = 0; n <= text.size(); ++n) {
    const auto r = parseNvidiaSmiTopo(std::string_view(text).substr(0, n));
    if (n < lastNicRow) QVERIFY2(!r.ok(), qPrintable(QString("prefix %1 accepted").arg(n)));
    if (!r.ok()) QVERIFY(!r.error().message.empty());
    if (r.ok()) ++accepted;
  }
  QVERIFY(accepted > 0);
}

void TstNvsmiTopo::mutatedInputKeepsConsistentShapes() {
  const auto text = readFixture("dgx-h100.txt");
  QRandomGenerator rng(20240611);
  const char alphabet[] = "\t\n\r \x1b[mXNV0123456789PIXSYNODE-,:/A\xff";
  for (int i = 0; i < 3000; ++i) {
    auto mutated = text;
    const int edits = 1 + rng.bounded(4);
    for (int e = 0; e < edits; ++e) {
      const auto pos = static_cast<size_t>(rng.bounded(static_cast<quint32>(mutated.size())));
      const char c = alphabet[rng.bounded(static_cast<quint32>(sizeof alphabet - 1))];
      if (rng.bounded(3) == 0)
        mutated.erase(pos, 1);
      else
        mutated[pos] = c;
    }
    const auto r = parseNvidiaSmiTopo(mutated);
    if (!r.ok()) {
      QVERIFY(!r.error().message.empty());
      continue;
    }
    const size_t gpus = r->gpus.size();
    const size_t nics = r->nics.size();
    QCOMPARE(r->gpuGpu.size(), gpus);
    QCOMPARE(r->gpuNic.size(), gpus);
    QCOMPARE(r->nicNic.size(), nics);
    QCOMPARE(r->cpuAffinity.size(), gpus);
    QCOMPARE(r->numaAffinity.size(), gpus);
    for (size_t g = 0; g < gpus; ++g) {
      QCOMPARE(r->gpuGpu[g].size(), gpus);
      QCOMPARE(r->gpuNic[g].size(), nics);
      QCOMPARE(r->gpuGpu[g][g], link(LinkKind::Self));
    }
  }
}

QTEST_APPLESS_MAIN(TstNvsmiTopo)
#include "tst_nvsmi_topo.moc"
