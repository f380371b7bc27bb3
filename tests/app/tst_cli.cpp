// The command-line verbs (`tessera gpus|cluster|mig ...`), driven in-process through
// tessera::cli::run with string streams: help texts, usage errors and exit codes, the MIG verbs
// on the reference's worked examples (shared reference 1.5), mig-parted export (parsed back with
// yaml-cpp), cluster summaries (parsed back as JSON), node details, topology import round trips
// and the --catalog option. Expected values are computed from the engine's data (catalog, demo
// cluster, topo fixtures) or from the reference, never copied from the verb's own output.
#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <yaml-cpp/yaml.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <iomanip>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "app/cli_test_util.h"
#include "cli/cli.h"
#include "clusterspec/cluster_spec.h"
#include "mig/mig_validate.h"
#include "scheduler/mps_spec.h"
#include "topology/gpu_catalog.h"
#include "topology/nvsmi_topo.h"

// Lets QCOMPARE print std::string values when a comparison fails.
template <>
inline char* QTest::toString<std::string>(const std::string& s) {
  return qstrdup(s.c_str());
}

using namespace tessera;
using namespace tessera::test;

namespace {

using Counts = std::map<std::string, int>;

std::vector<std::string> toStd(const QStringList& list) {
  std::vector<std::string> out;
  for (const auto& s : list) out.push_back(s.toStdString());
  return out;
}

bool isVerb(const std::vector<std::string>& args) {
  std::vector<std::string> storage{"tessera"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<const char*> argv;
  for (const auto& a : storage) argv.push_back(a.c_str());
  return cli::isVerbInvocation(static_cast<int>(argv.size()), argv.data());
}

std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return {};
  const auto e = s.find_last_not_of(" \t\r\n");
  return s.substr(b, e - b + 1);
}

const std::string kData = TESSERA_TEST_DATA;
const std::string kDemoSpec = std::string(TESSERA_SOURCE_DIR) + "/resources/demo-cluster.yaml";
const std::string kGoodSpec = kData + "/cli/good-cluster.yaml";
const std::string kBrokenSpec = kData + "/cli/broken-cluster.yaml";
const std::string kExtraCatalog = kData + "/cli/extra-catalog.yaml";
const std::string kBrokenCatalog = kData + "/cli/broken-catalog.yaml";
const std::string kTopoDgxH100 = kData + "/topo/dgx-h100.txt";

const GpuModel& builtinModel(const char* name) {
  const GpuModel* m = GpuCatalog::builtin().find(name);
  if (!m) qFatal("model %s missing from the built-in catalog", name);
  return *m;
}

MigInstance instance(int profile, int start) {
  MigInstance i;
  i.profile = static_cast<int8_t>(profile);
  i.start = static_cast<int8_t>(start);
  return i;
}

bool validWith(const MigGeometry& g, MigLayout layout, int profile, int start) {
  if (!layout.add(instance(profile, start))) return false;
  return validateMigLayout(g, layout).ok();
}

// Independent enumeration of placed layouts (sets of profile@start), for counting: every
// (profile, start) pair in a fixed order, adding only pairs after the last one, pruning as soon
// as the layout is invalid (every check is monotone: a superset of an invalid set is invalid).
struct LayoutCounter {
  const MigGeometry& g;
  std::vector<std::pair<int, int>> placements;
  size_t all = 0;
  size_t maximal = 0;

  explicit LayoutCounter(const MigGeometry& geometry) : g(geometry) {
    for (size_t p = 0; p < g.profiles.size(); ++p)
      for (int s = 0; s < g.memorySlices; ++s)
        if (g.profiles[p].canStartAt(s)) placements.emplace_back(static_cast<int>(p), s);
  }

  void run(MigLayout& current, size_t from) {
    ++all;
    bool extendable = false;
    for (const auto& [p, s] : placements)
      if (validWith(g, current, p, s)) extendable = true;
    if (!extendable) ++maximal;
    for (size_t i = from; i < placements.size(); ++i) {
      if (!current.add(instance(placements[i].first, placements[i].second))) continue;
      if (validateMigLayout(g, current).ok()) run(current, i + 1);
      current.removeAt(current.size() - 1);
    }
  }
};

// Most instances of `profile` that can still be added to `layout` (exhaustive search).
int maxAdditional(const MigGeometry& g, const MigLayout& layout, int profile, int fromStart) {
  int best = 0;
  for (int s = fromStart; s < g.memorySlices; ++s) {
    if (!g.profiles[static_cast<size_t>(profile)].canStartAt(s)) continue;
    MigLayout more = layout;
    if (!more.add(instance(profile, s)) || !validateMigLayout(g, more).ok()) continue;
    best = std::max(best, 1 + maxAdditional(g, more, profile, s + 1));
  }
  return best;
}

std::string fixed3(double v) {
  std::ostringstream s;
  s << std::fixed << std::setprecision(3) << v;
  return s.str();
}

// The line of `text` whose first token is `first`, or nullopt.
std::optional<std::string> lineStartingWith(const std::string& text, const std::string& first) {
  for (const auto& line : linesOf(text)) {
    std::istringstream in(line);
    std::string token;
    if (in >> token && token == first) return line;
  }
  return std::nullopt;
}

std::string indent(const std::string& text, const std::string& prefix) {
  std::string out;
  for (const auto& line : linesOf(text)) out += (line.empty() ? line : prefix + line) + "\n";
  return out;
}

// A cluster spec with the import-topo output pasted under node_templates, one node of it.
std::string specWithTemplate(const std::string& importOutput, const std::string& templateName) {
  return "version: 1\nname: imported\nnode_templates:\n" + indent(importOutput, "  ") +
         "fabric:\n  leafs:\n    - {name: leaf-1}\nnodes:\n  - {name: n1, template: " +
         templateName + ", leaf: leaf-1}\n";
}

// `nvidia-smi topo -m` text (older form: no NICs, no legend) of `gpus` GPUs on one NUMA zone.
std::string syntheticTopo(int gpus) {
  std::string text;
  for (int b = 0; b < gpus; ++b) text += "\tGPU" + std::to_string(b);
  text += "\tCPU Affinity\tNUMA Affinity\n";
  for (int a = 0; a < gpus; ++a) {
    text += "GPU" + std::to_string(a);
    for (int b = 0; b < gpus; ++b) text += a == b ? "\t X " : "\tNODE";
    text += "\t0-63\t0\n";
  }
  return text;
}

}  // namespace

#define VERIFY_CODE(result, expected) \
  QVERIFY2((result).code == (expected), qPrintable(describe(result)))

#define VERIFY_CONTAINS(text, needle)                                       \
  QVERIFY2(contains((text), (needle)),                                      \
           qPrintable(QStringLiteral("expected to find \"%1\" in:\n%2")     \
                          .arg(QString::fromStdString(std::string(needle)), \
                               QString::fromStdString(text))))

#define VERIFY_NOT_CONTAINS(text, needle)                                   \
  QVERIFY2(!contains((text), (needle)),                                     \
           qPrintable(QStringLiteral("did not expect \"%1\" in:\n%2")       \
                          .arg(QString::fromStdString(std::string(needle)), \
                               QString::fromStdString(text))))

class TstCli : public QObject {
  Q_OBJECT

 private slots:
  // ---- help, usage errors, isVerbInvocation ------------------------------------------------

  void help_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("usage");
    QTest::addColumn<QStringList>("mustContain");
    QTest::newRow("top") << QStringList{"--help"} << "Usage: tessera [OPTIONS] SUBCOMMAND"
                         << QStringList{"gpus",           "cluster",        "mig",
                                        "--catalog",      "--version",      "console",
                                        "--cluster FILE", "--catalog FILE", "--screenshot FILE"};
    // A console option's value is not a verb: the help still shows (it once said "unknown verb").
    QTest::newRow("--cluster f --help")
        << QStringList{"--cluster", "x.yaml", "--help"} << "Usage: tessera [OPTIONS] SUBCOMMAND"
        << QStringList{"--cluster FILE"};
    QTest::newRow("--screenshot f -h")
        << QStringList{"--screenshot", "shot.png", "-h"} << "Usage: tessera [OPTIONS] SUBCOMMAND"
        << QStringList{"mig"};
    QTest::newRow("--catalog c --cluster f --help")
        << QStringList{"--catalog", QString::fromStdString(kExtraCatalog), "--cluster", "x.yaml",
                       "--help"}
        << "Usage: tessera [OPTIONS] SUBCOMMAND" << QStringList{"mig"};
    QTest::newRow("top -h") << QStringList{"-h"} << "Usage: tessera [OPTIONS] SUBCOMMAND"
                            << QStringList{"gpus", "cluster", "mig"};
    QTest::newRow("gpus") << QStringList{"gpus", "--help"} << "Usage: tessera gpus"
                          << QStringList{"list", "show"};
    QTest::newRow("gpus list") << QStringList{"gpus", "list", "--help"}
                               << "Usage: tessera gpus list" << QStringList{"-o,--output", "json"};
    QTest::newRow("gpus show") << QStringList{"gpus", "show", "--help"}
                               << "Usage: tessera gpus show" << QStringList{"MODEL", "-o,--output"};
    QTest::newRow("cluster") << QStringList{"cluster", "--help"} << "Usage: tessera cluster"
                             << QStringList{"show", "validate", "node", "import-topo",
                                            "import-slurm"};
    QTest::newRow("cluster show") << QStringList{"cluster", "show", "--help"}
                                  << "Usage: tessera cluster show"
                                  << QStringList{"FILE", "-o,--output"};
    QTest::newRow("cluster validate") << QStringList{"cluster", "validate", "--help"}
                                      << "Usage: tessera cluster validate" << QStringList{"FILE"};
    QTest::newRow("cluster node") << QStringList{"cluster", "node", "--help"}
                                  << "Usage: tessera cluster node" << QStringList{"NAME", "--spec"};
    QTest::newRow("cluster import-topo")
        << QStringList{"cluster", "import-topo", "--help"} << "Usage: tessera cluster import-topo"
        << QStringList{"FILE", "--model", "--name"};
    QTest::newRow("cluster import-slurm")
        << QStringList{"cluster", "import-slurm", "--help"} << "Usage: tessera cluster import-slurm"
        << QStringList{"-o,--output", "--spec", "--gpu-model", "--from-files"};
    QTest::newRow("mig") << QStringList{"mig", "--help"} << "Usage: tessera mig"
                         << QStringList{"validate", "layouts",       "fits",
                                        "plan",     "fragmentation", "export"};
    QTest::newRow("mig validate") << QStringList{"mig", "validate", "--help"}
                                  << "Usage: tessera mig validate"
                                  << QStringList{"--gpu", "LAYOUT"};
    QTest::newRow("mig layouts") << QStringList{"mig", "layouts", "--help"}
                                 << "Usage: tessera mig layouts"
                                 << QStringList{"--gpu", "--maximal", "--count"};
    QTest::newRow("mig fits") << QStringList{"mig", "fits", "--help"} << "Usage: tessera mig fits"
                              << QStringList{"--gpu", "LAYOUT"};
    QTest::newRow("mig plan") << QStringList{"mig", "plan", "--help"} << "Usage: tessera mig plan"
                              << QStringList{"--gpu", "--current", "--target"};
    QTest::newRow("mig fragmentation")
        << QStringList{"mig", "fragmentation", "--help"} << "Usage: tessera mig fragmentation"
        << QStringList{"--gpu", "LAYOUT", "--demand"};
    QTest::newRow("mig export") << QStringList{"mig", "export", "--help"}
                                << "Usage: tessera mig export"
                                << QStringList{"--gpu", "--config", "--cluster", "--node",
                                               "-o,--output"};
  }

  void help() {
    QFETCH(QStringList, args);
    QFETCH(QString, usage);
    QFETCH(QStringList, mustContain);
    const CliResult r = runCli(toStd(args));
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, usage.toStdString());
    for (const auto& s : mustContain) VERIFY_CONTAINS(r.out, s.toStdString());
    QVERIFY2(r.err.empty(), r.err.c_str());
  }

  void version() {
    const CliResult r = runCli({"--version"});
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, "tessera ");
  }

  void usageErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("errMentions");
    QTest::newRow("no verb") << QStringList{} << "subcommand";
    QTest::newRow("unknown verb") << QStringList{"frobnicate"} << "frobnicate";
    QTest::newRow("verb without sub-verb") << QStringList{"mig"} << "subcommand";
    QTest::newRow("unknown sub-verb") << QStringList{"gpus", "frobnicate"} << "--help";
    QTest::newRow("unknown top option") << QStringList{"--bogus", "gpus", "list"} << "--bogus";
    QTest::newRow("unknown verb option") << QStringList{"gpus", "list", "--bogus"} << "--bogus";
    QTest::newRow("unknown mig option")
        << QStringList{"mig", "validate", "--gpu", "H100", "--frob", "3g.40gb@0"} << "--frob";
    QTest::newRow("bad output format") << QStringList{"gpus", "list", "-o", "yaml"} << "yaml";
    QTest::newRow("missing --gpu") << QStringList{"mig", "validate", "3g.40gb@0"} << "--gpu";
    QTest::newRow("missing layout") << QStringList{"mig", "validate", "--gpu", "H100"} << "LAYOUT";
    QTest::newRow("extra positional")
        << QStringList{"mig", "validate", "--gpu", "H100", "3g.40gb@4", "2g.20gb@0"} << "2g.20gb@0";
    QTest::newRow("missing --model")
        << QStringList{"cluster", "import-topo", QString::fromStdString(kTopoDgxH100)} << "--model";
    QTest::newRow("missing catalog file")
        << QStringList{"--catalog", "/nonexistent/catalog.yaml", "gpus", "list"}
        << "/nonexistent/catalog.yaml";
  }

  void usageErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, errMentions);
    const CliResult r = runCli(toStd(args));
    VERIFY_CODE(r, cli::kExitUsage);
    VERIFY_CONTAINS(r.err, errMentions.toStdString());
    QVERIFY2(r.out.empty(), r.out.c_str());
  }

  void isVerbInvocation_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<bool>("verb");
    QTest::newRow("no args") << QStringList{} << false;
    // The console's own options (app/main.cpp: --cluster FILE, --screenshot FILE) must open the
    // console, not the CLI: their values are not verbs.
    QTest::newRow("--cluster f") << QStringList{"--cluster", "f"} << false;
    QTest::newRow("--cluster=f") << QStringList{"--cluster=f"} << false;
    QTest::newRow("--screenshot f") << QStringList{"--screenshot", "shot.png"} << false;
    QTest::newRow("--cluster f --screenshot g")
        << QStringList{"--cluster", "f", "--screenshot", "g.png"} << false;
    QTest::newRow("--catalog c") << QStringList{"--catalog", "c.yaml"} << false;
    QTest::newRow("mig") << QStringList{"mig", "validate", "--gpu", "H100", "3g.40gb@0"} << true;
    QTest::newRow("gpus") << QStringList{"gpus", "list"} << true;
    QTest::newRow("--catalog c gpus") << QStringList{"--catalog", "c.yaml", "gpus", "list"} << true;
    QTest::newRow("--cluster f --help") << QStringList{"--cluster", "x.yaml", "--help"} << true;
    QTest::newRow("--catalog c --cluster f")
        << QStringList{"--catalog", "c.yaml", "--cluster", "f"} << false;
    QTest::newRow("--help") << QStringList{"--help"} << true;
    QTest::newRow("-h") << QStringList{"-h"} << true;
    QTest::newRow("--version") << QStringList{"--version"} << true;
  }

  void isVerbInvocation() {
    QFETCH(QStringList, args);
    QFETCH(bool, verb);
    QCOMPARE(isVerb(toStd(args)), verb);
  }

  // Every console option's value is skipped alike by the verb detection and by the verb parser's
  // unknown-verb check, and every one is in `tessera --help`.
  void consoleOptionsAgree() {
    const CliResult help = runCli({"--help"});
    // An existing file: the verbs' own --catalog is checked for one before --help is seen.
    const std::string& value = kExtraCatalog;
    for (const auto& o : cli::kConsoleOptions) {
      const std::string flag = "--" + std::string(o.name);
      QVERIFY2(cli::isConsoleValueOption(flag), flag.c_str());
      QVERIFY2(!isVerb({flag, "gpus"}), flag.c_str());
      QVERIFY2(isVerb({flag, value, "gpus", "list"}), flag.c_str());
      const CliResult r = runCli({flag, value, "--help"});
      VERIFY_CODE(r, cli::kExitOk);
      VERIFY_NOT_CONTAINS(r.err, "unknown verb");
      VERIFY_CONTAINS(help.out, flag + " FILE");
      VERIFY_CONTAINS(help.out, std::string(o.help));
    }
    QVERIFY(!cli::isConsoleValueOption("--gpu"));
    QVERIFY(!cli::isConsoleValueOption("cluster"));
  }

  // ---- gpus ----------------------------------------------------------------------------------

  void gpusList() {
    const CliResult r = runCli({"gpus", "list"});
    VERIFY_CODE(r, cli::kExitOk);
    const auto& models = GpuCatalog::builtin().models();
    QVERIFY(models.size() > 10);
    const auto lines = linesOf(r.out);
    QCOMPARE(lines.size(), models.size() + 1);  // header + one row per model
    for (size_t i = 0; i < models.size(); ++i) {
      std::istringstream row(lines[i + 1]);
      std::string first;
      row >> first;
      QCOMPARE(first, models[i]->id);
      VERIFY_CONTAINS(lines[i + 1], models[i]->productName);
      VERIFY_CONTAINS(lines[i + 1], models[i]->migCapable() ? " yes " : " no ");
    }
  }

  void gpusListJson() {
    const CliResult r = runCli({"gpus", "list", "-o", "json"});
    VERIFY_CODE(r, cli::kExitOk);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(r.out);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    const auto& models = GpuCatalog::builtin().models();
    QVERIFY(j.is_array());
    QCOMPARE(j.size(), models.size());
    for (size_t i = 0; i < models.size(); ++i) {
      QCOMPARE(j[i]["id"].get<std::string>(), models[i]->id);
      QCOMPARE(j[i]["mig_capable"].get<bool>(), models[i]->migCapable());
    }
  }

  void gpusShowH100() {
    const CliResult r = runCli({"gpus", "show", "H100"});
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, "H100-SXM5-80GB");
    VERIFY_CONTAINS(r.out, "NVIDIA H100 80GB HBM3");
    VERIFY_CONTAINS(r.out, "0x233010DE");
    // Reference 1.3/1.4: profile, ID, max, placements.
    const std::vector<std::vector<std::string>> rows = {
        {"1g.10gb", "19", "7", "{0,1,2,3,4,5,6}:1"},
        {"1g.10gb+me", "20", "1", "{0,1,2,3,4,5,6}:1"},
        {"1g.20gb", "15", "4", "{0,2,4,6}:2"},
        {"2g.20gb", "14", "3", "{0,2,4}:2"},
        {"3g.40gb", "9", "2", "{0,4}:4"},
        {"4g.40gb", "5", "1", "{0}:4"},
        {"7g.80gb", "0", "1", "{0}:8"}};
    for (const auto& expected : rows) {
      const auto line = lineStartingWith(r.out, expected[0]);
      QVERIFY2(line, qPrintable(QString::fromStdString("no MIG table row for " + expected[0] +
                                                       " in\n" + r.out)));
      std::istringstream in(*line);
      std::vector<std::string> tokens;
      for (std::string t; in >> t;) tokens.push_back(t);
      QVERIFY2(tokens.size() >= 6, line->c_str());
      QCOMPARE(tokens[1], expected[1]);
      QCOMPARE(tokens[2], expected[2]);
      QCOMPARE(tokens[5], expected[3]);
    }
  }

  void gpusShowByProductNameAndAlias() {
    const CliResult byId = runCli({"gpus", "show", "H100-SXM5-80GB"});
    const CliResult byProduct = runCli({"gpus", "show", "NVIDIA H100 80GB HBM3"});
    const CliResult byAliasLower = runCli({"gpus", "show", "h100"});
    VERIFY_CODE(byId, cli::kExitOk);
    QCOMPARE(byProduct.out, byId.out);
    QCOMPARE(byAliasLower.out, byId.out);
  }

  void gpusShowJson() {
    const CliResult r = runCli({"gpus", "show", "A30", "-o", "json"});
    VERIFY_CODE(r, cli::kExitOk);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(r.out);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    QCOMPARE(j["id"].get<std::string>(), std::string("A30-24GB"));
    // Reference 1.4, A30 table.
    std::map<std::string, std::vector<int>> starts;
    for (const auto& p : j["mig_profiles"])
      starts[p["name"].get<std::string>()] = p["starts"].get<std::vector<int>>();
    QCOMPARE(starts.size(), size_t{5});
    QCOMPARE(starts["1g.6gb"], (std::vector<int>{0, 1, 2, 3}));
    QCOMPARE(starts["2g.12gb+me"], (std::vector<int>{0, 2}));
    QCOMPARE(starts["4g.24gb"], (std::vector<int>{0}));
  }

  void gpusShowNonMig() {
    const CliResult r = runCli({"gpus", "show", "L4"});
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, "MIG: not supported");
  }

  void unknownModel_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("gpus show") << QStringList{"gpus", "show", "Z9000"};
    QTest::newRow("mig validate") << QStringList{"mig", "validate", "--gpu", "Z9000", "1g.10gb@0"};
    QTest::newRow("mig layouts") << QStringList{"mig", "layouts", "--gpu", "Z9000", "--count"};
    QTest::newRow("import-topo") << QStringList{
        "cluster", "import-topo", QString::fromStdString(kTopoDgxH100), "--model", "Z9000"};
  }

  void unknownModel() {
    QFETCH(QStringList, args);
    const CliResult r = runCli(toStd(args));
    VERIFY_CODE(r, cli::kExitUsage);
    VERIFY_CONTAINS(r.err, "'Z9000'");
    VERIFY_CONTAINS(r.err, "H100-SXM5-80GB");  // lists the known ids
    QVERIFY2(r.out.empty(), r.out.c_str());
  }

  // ---- mig validate --------------------------------------------------------------------------

  void migValidate_data() {
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("layout");
    QTest::addColumn<int>("code");
    QTest::addColumn<QStringList>("outContains");
    // Reference 1.5 worked examples (8-slice GPUs), on H100.
    QTest::newRow("3-2-1-1") << "H100"
                             << "3g.40gb@4,2g.20gb@0,1g.10gb@2,1g.10gb@3" << 0
                             << QStringList{"valid on H100-SXM5-80GB", "4 GPU instance(s)",
                                            "[########] 8/8", "compute slices 7/7"};
    QTest::newRow("4g+3g") << "H100"
                           << "4g.40gb@0,3g.40gb@4" << 0
                           << QStringList{"valid on H100-SXM5-80GB", "2 GPU instance(s)",
                                          "compute slices 7/7"};
    QTest::newRow("2g x3 + 1g.20gb") << "H100"
                                     << "2g.20gb@0,2g.20gb@2,2g.20gb@4,1g.20gb@6" << 0
                                     << QStringList{"valid on", "8/8", "compute slices 7/7"};
    QTest::newRow("four 1g.20gb") << "H100"
                                  << "1g.20gb@0,1g.20gb@2,1g.20gb@4,1g.20gb@6" << 0
                                  << QStringList{"valid on", "8/8", "compute slices 4/7"};
    QTest::newRow("partial") << "H100"
                             << "3g.40gb@0" << 0
                             << QStringList{"valid on", "[####....] 4/8", "compute slices 3/7"};
    QTest::newRow("A30 via alias") << "A30"
                                   << "2g.12gb@0,1g.6gb@2,1g.6gb+me@3" << 0
                                   << QStringList{"valid on A30-24GB", "4/4", "compute slices 4/4"};
    QTest::newRow("3g+3g+1g: overlap")
        << "H100"
        << "3g.40gb@0,3g.40gb@4,1g.10gb@6" << 1
        << QStringList{"invalid", "check 2", "1g.10gb@6", "3g.40gb@4"};
    QTest::newRow("two 1g+me: count")
        << "H100"
        << "1g.10gb+me@0,1g.10gb+me@1" << 1 << QStringList{"invalid", "check 3", "1g.10gb+me"};
    QTest::newRow("3g at 2: start")
        << "H100"
        << "3g.40gb@2" << 1 << QStringList{"invalid", "check 1", "{0,4}"};
    QTest::newRow("A30 two +me: engines")
        << "A30"
        << "1g.6gb+me@0,2g.12gb+me@2" << 1 << QStringList{"invalid", "check 4"};
    QTest::newRow("bad compute instances")
        << "H100"
        << "4g.40gb@0(3c)" << 1 << QStringList{"invalid", "compute instances"};
    QTest::newRow("unplaced impossible")
        << "H100"
        << "3g.40gb,3g.40gb,1g.10gb" << 1 << QStringList{"invalid"};
  }

  void migValidate() {
    QFETCH(QString, gpu);
    QFETCH(QString, layout);
    QFETCH(int, code);
    QFETCH(QStringList, outContains);
    const CliResult r =
        runCli({"mig", "validate", "--gpu", gpu.toStdString(), layout.toStdString()});
    VERIFY_CODE(r, code);
    for (const auto& s : outContains) VERIFY_CONTAINS(r.out, s.toStdString());
    if (code == 0) VERIFY_NOT_CONTAINS(r.out, "invalid");
  }

  void migValidateUnplaced() {
    // Like `nvidia-smi mig -cgi 9,14,19,19`: valid when some placement exists; says which.
    const CliResult r =
        runCli({"mig", "validate", "--gpu", "H100", "3g.40gb,2g.20gb,1g.10gb,1g.10gb"});
    VERIFY_CODE(r, cli::kExitOk);
    const auto line = lineStartingWith(r.out, "placeable");
    QVERIFY2(line, r.out.c_str());
    const std::string prefix = "placeable as: ";
    QVERIFY2(line->rfind(prefix, 0) == 0, line->c_str());
    const std::string placed = line->substr(prefix.size());
    // The proposed placement holds the same instances, each with a start, and is itself valid.
    const GpuModel& h100 = builtinModel("H100");
    auto parsed = parseMigLayout(h100, placed);
    QVERIFY2(parsed.ok(), placed.c_str());
    QVERIFY(parsed->allPlaced());
    Counts counts;
    for (const auto& i : *parsed) ++counts[h100.mig->profiles[static_cast<size_t>(i.profile)].name];
    QCOMPARE(counts, (Counts{{"3g.40gb", 1}, {"2g.20gb", 1}, {"1g.10gb", 2}}));
    const CliResult again = runCli({"mig", "validate", "--gpu", "H100", placed});
    VERIFY_CODE(again, cli::kExitOk);
    VERIFY_CONTAINS(again.out, "valid on H100-SXM5-80GB");
  }

  void migValidateSyntaxErrors_data() {
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("layout");
    QTest::addColumn<QString>("errMentions");
    QTest::newRow("unknown profile") << "H100"
                                     << "9g.1gb@0"
                                     << "9g.1gb";
    QTest::newRow("start out of range") << "H100"
                                        << "3g.40gb@9"
                                        << "3g.40gb@9";
    QTest::newRow("start not a number") << "H100"
                                        << "3g.40gb@x"
                                        << "3g.40gb@x";
    QTest::newRow("empty item") << "H100"
                                << "3g.40gb@0,,1g.10gb@4"
                                << "empty item";
    QTest::newRow("CI too big") << "H100"
                                << "3g.40gb@0(1c+5c)"
                                << "5c";
    QTest::newRow("CI not closed") << "H100"
                                   << "3g.40gb@0(1c"
                                   << "3g.40gb@0(1c";
    QTest::newRow("repeat with start") << "H100"
                                       << "2x1g.10gb@0"
                                       << "2x1g.10gb@0";
    QTest::newRow("A100 profile on H100") << "H100"
                                          << "1g.5gb@0"
                                          << "1g.5gb";
    QTest::newRow("non-MIG model") << "L4"
                                   << "1g.10gb@0"
                                   << "not MIG capable";
  }

  void migValidateSyntaxErrors() {
    QFETCH(QString, gpu);
    QFETCH(QString, layout);
    QFETCH(QString, errMentions);
    const CliResult r =
        runCli({"mig", "validate", "--gpu", gpu.toStdString(), layout.toStdString()});
    VERIFY_CODE(r, cli::kExitUsage);
    VERIFY_CONTAINS(r.err, errMentions.toStdString());
    QVERIFY2(r.out.empty(), r.out.c_str());
  }

  // ---- mig layouts / fits / plan / fragmentation ---------------------------------------------

  void migLayoutsCount_data() {
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("id");
    QTest::newRow("A30") << "A30"
                         << "A30-24GB";
    QTest::newRow("H100") << "H100"
                          << "H100-SXM5-80GB";
    QTest::newRow("A100-40GB") << "A100-40GB"
                               << "A100-SXM4-40GB";
  }

  void migLayoutsCount() {
    QFETCH(QString, gpu);
    QFETCH(QString, id);
    const GpuModel& m = builtinModel(gpu.toStdString().c_str());
    LayoutCounter counter(*m.mig);
    MigLayout empty;
    counter.run(empty, 0);

    const CliResult all = runCli({"mig", "layouts", "--gpu", gpu.toStdString(), "--count"});
    VERIFY_CODE(all, cli::kExitOk);
    QCOMPARE(linesOf(all.out).size(), size_t{1});
    QCOMPARE(trimmed(all.out), std::to_string(counter.all) + " valid layouts of " +
                                   id.toStdString() + " (including the empty one)");

    const CliResult maximal =
        runCli({"mig", "layouts", "--gpu", gpu.toStdString(), "--maximal", "--count"});
    VERIFY_CODE(maximal, cli::kExitOk);
    QCOMPARE(trimmed(maximal.out),
             std::to_string(counter.maximal) + " maximal layouts of " + id.toStdString());
  }

  void migLayoutsListed() {
    // Without --count: one valid layout per line (the empty one as "-"), then the count line.
    const CliResult r = runCli({"mig", "layouts", "--gpu", "A30", "--maximal"});
    VERIFY_CODE(r, cli::kExitOk);
    const auto lines = linesOf(r.out);
    QVERIFY(lines.size() > 2);
    const GpuModel& a30 = builtinModel("A30");
    std::vector<std::string> seen;
    for (size_t i = 0; i + 1 < lines.size(); ++i) {
      auto layout = parseMigLayout(a30, lines[i]);
      QVERIFY2(layout.ok(), lines[i].c_str());
      QVERIFY2(validateMigLayout(*a30.mig, *layout).ok(), lines[i].c_str());
      for (size_t p = 0; p < a30.mig->profiles.size(); ++p)
        for (int s = 0; s < a30.mig->memorySlices; ++s)
          if (a30.mig->profiles[p].canStartAt(s))
            QVERIFY2(!validWith(*a30.mig, *layout, static_cast<int>(p), s),
                     lines[i].c_str());  // maximal
      seen.push_back(lines[i]);
    }
    std::sort(seen.begin(), seen.end());
    QVERIFY(std::adjacent_find(seen.begin(), seen.end()) == seen.end());  // no duplicates
    QCOMPARE(lines.back(), std::to_string(seen.size()) + " maximal layouts of A30-24GB");
  }

  void migFits_data() {
    QTest::addColumn<QString>("layout");
    QTest::newRow("empty") << "-";
    QTest::newRow("3g@0") << "3g.40gb@0";
    QTest::newRow("3-2-1 with a gap") << "2g.20gb@0,1g.10gb@2,3g.40gb@4";
    QTest::newRow("+me used") << "1g.10gb+me@0";
    QTest::newRow("full") << "7g.80gb@0";
  }

  void migFits() {
    QFETCH(QString, layout);
    const GpuModel& h100 = builtinModel("H100");
    const MigGeometry& g = *h100.mig;
    auto current = parseMigLayout(h100, layout.toStdString());
    QVERIFY(current.ok());
    std::map<std::string, std::string> expected;  // profile -> "s0,s1,..."
    for (size_t p = 0; p < g.profiles.size(); ++p) {
      std::string starts;
      for (int s = 0; s < g.memorySlices; ++s)
        if (g.profiles[p].canStartAt(s) && validWith(g, *current, static_cast<int>(p), s))
          starts += (starts.empty() ? "" : ",") + std::to_string(s);
      if (!starts.empty()) expected[g.profiles[p].name] = starts;
    }
    const CliResult r = runCli({"mig", "fits", "--gpu", "H100", layout.toStdString()});
    VERIFY_CODE(r, cli::kExitOk);
    if (expected.empty()) {
      VERIFY_CONTAINS(r.out, "nothing else fits");
      return;
    }
    std::map<std::string, std::string> actual;
    for (const auto& line : linesOf(r.out)) {
      const auto at = line.find(" at ");
      QVERIFY2(at != std::string::npos, line.c_str());
      actual[trimmed(line.substr(0, at))] = trimmed(line.substr(at + 4));
    }
    QCOMPARE(actual, expected);
  }

  void migFitsNeedsPlacedLayout() {
    const CliResult r = runCli({"mig", "fits", "--gpu", "H100", "3g.40gb"});
    VERIFY_CODE(r, cli::kExitUsage);
    VERIFY_CONTAINS(r.err, "PROFILE@START");
    const CliResult invalid = runCli({"mig", "fits", "--gpu", "H100", "3g.40gb@2"});
    VERIFY_CODE(invalid, cli::kExitInvalid);
    VERIFY_CONTAINS(invalid.err, "check 1");
  }

  // README: 1 = the input was checked and is invalid, 2 = usage or input error; the same for
  // every verb that takes a layout.
  void migLayoutExitCodes_data() {
    QTest::addColumn<QString>("verb");
    QTest::addColumn<QString>("gpu");
    QTest::addColumn<QString>("layout");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("errMentions");
    for (const QString& verb : {QStringLiteral("fits"), QStringLiteral("fragmentation")}) {
      const QByteArray v = verb.toUtf8();
      QTest::addRow("%s: overlapping", v.constData())
          << verb << "H100"
          << "3g.40gb@0,3g.40gb@2" << cli::kExitInvalid << "invalid layout";
      QTest::addRow("%s: bad start", v.constData())
          << verb << "H100"
          << "3g.40gb@2" << cli::kExitInvalid << "check 1";
      QTest::addRow("%s: too many", v.constData())
          << verb << "H100"
          << "3g.40gb@0,3g.40gb@4,1g.10gb@6" << cli::kExitInvalid << "check 2";
      QTest::addRow("%s: syntax", v.constData()) << verb << "H100"
                                                 << "3g.40gb@" << cli::kExitUsage << "3g.40gb@";
      QTest::addRow("%s: unknown profile", v.constData())
          << verb << "H100"
          << "5g.50gb@0" << cli::kExitUsage << "5g.50gb";
      QTest::addRow("%s: unplaced", v.constData())
          << verb << "H100"
          << "3g.40gb" << cli::kExitUsage << "PROFILE@START";
      QTest::addRow("%s: unknown model", v.constData()) << verb << "Z9"
                                                        << "-" << cli::kExitUsage << "Z9";
    }
  }

  void migLayoutExitCodes() {
    QFETCH(QString, verb);
    QFETCH(QString, gpu);
    QFETCH(QString, layout);
    QFETCH(int, code);
    QFETCH(QString, errMentions);
    const CliResult r =
        runCli({"mig", verb.toStdString(), "--gpu", gpu.toStdString(), layout.toStdString()});
    VERIFY_CODE(r, code);
    VERIFY_CONTAINS(r.err, errMentions.toStdString());
    QVERIFY2(r.out.empty(), r.out.c_str());
    // `mig validate` classifies the same layouts the same way.
    const CliResult v =
        runCli({"mig", "validate", "--gpu", gpu.toStdString(), layout.toStdString()});
    if (code == cli::kExitInvalid) VERIFY_CODE(v, cli::kExitInvalid);
  }

  void migPlanKeepsBusy() {
    const CliResult r =
        runCli({"mig", "plan", "--gpu", "H100", "--current", "3g.40gb@0*,1g.10gb@4,1g.10gb@5",
                "--target", "3g.40gb,2g.20gb,1g.20gb"});
    VERIFY_CODE(r, cli::kExitOk);
    const auto target = lineStartingWith(r.out, "target:");
    QVERIFY2(target, r.out.c_str());
    VERIFY_CONTAINS(*target, "3g.40gb@0*");  // the busy instance stays where it is
    const GpuModel& h100 = builtinModel("H100");
    auto layout = parseMigLayout(h100, target->substr(std::string("target: ").size()));
    QVERIFY2(layout.ok(), target->c_str());
    QVERIFY(layout->allPlaced());
    QVERIFY2(validateMigLayout(*h100.mig, *layout).ok(), target->c_str());
    QCOMPARE(layout->size(), 3);
    // The busy instance is never destroyed; the idle 1g instances in the way are.
    for (const auto& line : linesOf(r.out)) {
      if (contains(line, "destroy")) VERIFY_NOT_CONTAINS(line, "3g.40gb");
    }
    VERIFY_CONTAINS(r.out, "destroy 1g.10gb@4");
    VERIFY_CONTAINS(r.out, "destroy 1g.10gb@5");
    VERIFY_CONTAINS(r.out, "kept: 1 instance(s)");
  }

  void migPlanSimple() {
    const CliResult r = runCli(
        {"mig", "plan", "--gpu", "H100", "--current", "3g.40gb@4*", "--target", "4g.40gb,3g.40gb"});
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, "target: 4g.40gb@0,3g.40gb@4*");
    VERIFY_CONTAINS(r.out, "create  4g.40gb@0");
    VERIFY_NOT_CONTAINS(r.out, "destroy");
  }

  void migPlanImpossible_data() {
    QTest::addColumn<QString>("current");
    QTest::addColumn<QString>("target");
    // With 3g@0 busy, 2g + 1g + 1g must fit in slices 4-7, but no 1-slice profile reaches slice 7
    // (reference 1.4).
    QTest::newRow("no room next to busy") << "3g.40gb@0*,3g.40gb@4"
                                          << "3g.40gb,2g.20gb,1g.10gb,1g.10gb";
    QTest::newRow("busy not in target") << "3g.40gb@4*,1g.10gb@0*"
                                        << "4g.40gb,3g.40gb";
    QTest::newRow("too many slices") << "-"
                                     << "7g.80gb,1g.10gb";
  }

  void migPlanImpossible() {
    QFETCH(QString, current);
    QFETCH(QString, target);
    const CliResult r = runCli({"mig", "plan", "--gpu", "H100", "--current", current.toStdString(),
                                "--target", target.toStdString()});
    VERIFY_CODE(r, cli::kExitInvalid);
    VERIFY_CONTAINS(r.out, "no plan");
  }

  void migPlanUsageErrors() {
    const CliResult unplaced =
        runCli({"mig", "plan", "--gpu", "H100", "--current", "3g.40gb", "--target", "3g.40gb"});
    VERIFY_CODE(unplaced, cli::kExitUsage);
    VERIFY_CONTAINS(unplaced.err, "--current");
    const CliResult badTarget =
        runCli({"mig", "plan", "--gpu", "H100", "--current", "-", "--target", "5g.50gb"});
    VERIFY_CODE(badTarget, cli::kExitUsage);
    VERIFY_CONTAINS(badTarget.err, "--target");
  }

  void migFragmentation_data() {
    QTest::addColumn<QString>("layout");
    QTest::addColumn<QString>("demand");
    QTest::newRow("3g@0, default demand") << "3g.40gb@0"
                                          << "";
    QTest::newRow("two 1g, weighted") << "1g.10gb@1,1g.10gb@5"
                                      << "3g.40gb=2,1g.10gb=1";
    QTest::newRow("empty GPU") << "-"
                               << "";
    QTest::newRow("full GPU") << "3g.40gb@4,2g.20gb@0,1g.10gb@2,1g.10gb@3"
                              << "2g.20gb=1";
    QTest::newRow("fractional weights") << "1g.10gb@1,1g.10gb@5"
                                        << "3g.40gb=0.5,1g.10gb=2.25,2g.20gb=1e-3";
  }

  void migFragmentation() {
    QFETCH(QString, layout);
    QFETCH(QString, demand);
    const GpuModel& h100 = builtinModel("H100");
    const MigGeometry& g = *h100.mig;
    auto current = parseMigLayout(h100, layout.toStdString());
    QVERIFY(current.ok());
    std::vector<std::pair<int, double>> weights;
    if (demand.isEmpty()) {
      for (size_t p = 0; p < g.profiles.size(); ++p)
        if (!g.profiles[p].mediaExtensions) weights.emplace_back(static_cast<int>(p), 1.0);
    } else {
      for (const auto& item : demand.split(QLatin1Char(','))) {
        const auto kv = item.split(QLatin1Char('='));
        weights.emplace_back(g.profileIndex(kv[0].toStdString()), kv[1].toDouble());
      }
    }
    const int used = std::popcount(static_cast<unsigned>(current->occupiedMask(g)));
    const int freeSlices = g.memorySlices - used;
    double weighted = 0, total = 0;
    std::vector<std::pair<int, int>> perProfile;  // (more, stranded)
    for (const auto& [p, w] : weights) {
      const int more = maxAdditional(g, *current, p, 0);
      const int stranded = freeSlices - more * g.profiles[static_cast<size_t>(p)].memorySlices;
      perProfile.emplace_back(more, stranded);
      weighted += w * stranded;
      total += w;
    }
    const double strandedMean = weighted / total;

    std::vector<std::string> args{"mig", "fragmentation", "--gpu", "H100", layout.toStdString()};
    if (!demand.isEmpty()) {
      args.emplace_back("--demand");
      args.push_back(demand.toStdString());
    }
    const CliResult r = runCli(args);
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, "free memory slices: " + std::to_string(freeSlices) + "/8");
    for (size_t i = 0; i < weights.size(); ++i) {
      const std::string& name = g.profiles[static_cast<size_t>(weights[i].first)].name;
      const auto line = lineStartingWith(r.out, name);
      QVERIFY2(line, qPrintable(QString::fromStdString("no line for " + name + " in\n" + r.out)));
      VERIFY_CONTAINS(*line, ": " + std::to_string(perProfile[i].first) + " more fit, stranding " +
                                 std::to_string(perProfile[i].second) + " slice(s)");
    }
    VERIFY_CONTAINS(r.out, "stranded slices (demand-weighted): " + fixed3(strandedMean));
    VERIFY_CONTAINS(r.out, "fragmentation score: " + fixed3(strandedMean / g.memorySlices));
  }

  void migFragmentationBadDemand_data() {
    QTest::addColumn<QString>("demand");
    QTest::addColumn<QString>("errMentions");
    QTest::newRow("unknown profile") << "zz=2"
                                     << "zz";
    QTest::newRow("negative weight") << "3g.40gb=-1"
                                     << "3g.40gb=-1";
    QTest::newRow("zero weight") << "3g.40gb=0"
                                 << "3g.40gb=0";
    QTest::newRow("not a number") << "3g.40gb=abc"
                                  << "3g.40gb=abc";
    // The whole weight must be a finite number: no trailing text, no inf/nan, not empty.
    QTest::newRow("trailing text") << "3g.40gb=1x"
                                   << "3g.40gb=1x";
    QTest::newRow("trailing text after a valid item") << "1g.10gb=1,3g.40gb=2 5"
                                                      << "3g.40gb=2 5";
    QTest::newRow("inf") << "3g.40gb=inf"
                         << "3g.40gb=inf";
    QTest::newRow("-inf") << "3g.40gb=-inf"
                          << "3g.40gb=-inf";
    QTest::newRow("nan") << "3g.40gb=nan"
                         << "3g.40gb=nan";
    QTest::newRow("overflow") << "3g.40gb=1e999"
                              << "3g.40gb=1e999";
    QTest::newRow("empty") << "3g.40gb="
                           << "3g.40gb=";
    QTest::newRow("hex") << "3g.40gb=0x10"
                         << "3g.40gb=0x10";
  }

  void migFragmentationBadDemand() {
    QFETCH(QString, demand);
    QFETCH(QString, errMentions);
    const CliResult r = runCli(
        {"mig", "fragmentation", "--gpu", "H100", "1g.10gb@1", "--demand", demand.toStdString()});
    VERIFY_CODE(r, cli::kExitUsage);
    VERIFY_CONTAINS(r.err, errMentions.toStdString());
    QVERIFY2(r.out.empty(), r.out.c_str());
  }

  // ---- mig export ----------------------------------------------------------------------------

  void migExportConfig() {
    const CliResult r = runCli({"mig", "export", "--gpu", "H100", "--config",
                                "mixed:4,5=3g.40gb@4,2g.20gb@0,1g.10gb@2,1g.10gb@3"});
    VERIFY_CODE(r, cli::kExitOk);
    for (const char* s :
         {"version: v1", "mig-configs:", "mixed:", "devices: [4, 5]", "\"3g.40gb\": 1",
          "\"2g.20gb\": 1", "\"1g.10gb\": 2", "mig-enabled: true", "0x233010DE"})
      VERIFY_CONTAINS(r.out, s);

    // Structure, per the mig-parted v1 schema (reference 2.1).
    YAML::Node doc;
    try {
      doc = YAML::Load(r.out);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    const YAML::Node root = doc;
    QCOMPARE(root["version"].as<std::string>(), std::string("v1"));
    QVERIFY(root["mig-configs"].IsMap());
    QCOMPARE(root["mig-configs"].size(), size_t{1});
    const YAML::Node entries = root["mig-configs"]["mixed"];
    QVERIFY(entries.IsSequence());
    QCOMPARE(entries.size(), size_t{1});
    const YAML::Node e = entries[0];
    QCOMPARE(e["devices"].as<std::vector<int>>(), (std::vector<int>{4, 5}));
    QCOMPARE(e["mig-enabled"].as<bool>(), true);
    QCOMPARE(e["device-filter"].as<std::vector<std::string>>(),
             (std::vector<std::string>{"0x233010DE"}));
    QCOMPARE(e["mig-devices"].as<Counts>(),
             (Counts{{"3g.40gb", 1}, {"2g.20gb", 1}, {"1g.10gb", 2}}));
    // Only schema keys (mig-parted rejects others as "unexpected field").
    for (const auto& kv : e) {
      const auto key = kv.first.as<std::string>();
      QVERIFY2(key == "devices" || key == "device-filter" || key == "mig-enabled" ||
                   key == "mig-devices",
               key.c_str());
    }
  }

  void migExportSeveralConfigs() {
    const CliResult r =
        runCli({"mig", "export", "--gpu", "H100", "--config", "halves=3g.40gb@0,3g.40gb@4",
                "--config", "sliced:0,1=1g.20gb@0,1g.20gb@2,1g.20gb@4,1g.20gb@6", "--config",
                "sliced:2=7g.80gb@0", "--config", "none:3=-"});
    VERIFY_CODE(r, cli::kExitOk);
    const YAML::Node root = YAML::Load(r.out);
    const YAML::Node configs = root["mig-configs"];
    QCOMPARE(configs.size(), size_t{3});
    const YAML::Node halves = configs["halves"];
    QCOMPARE(halves.size(), size_t{1});
    QCOMPARE(halves[0]["devices"].as<std::string>(), std::string("all"));
    QCOMPARE(halves[0]["mig-devices"].as<Counts>(), (Counts{{"3g.40gb", 2}}));
    const YAML::Node sliced = configs["sliced"];
    QCOMPARE(sliced.size(), size_t{2});  // same name: one config with two entries
    QCOMPARE(sliced[0]["devices"].as<std::vector<int>>(), (std::vector<int>{0, 1}));
    QCOMPARE(sliced[0]["mig-devices"].as<Counts>(), (Counts{{"1g.20gb", 4}}));
    QCOMPARE(sliced[1]["devices"].as<std::vector<int>>(), (std::vector<int>{2}));
    QCOMPARE(sliced[1]["mig-devices"].as<Counts>(), (Counts{{"7g.80gb", 1}}));
    const YAML::Node none = configs["none"];
    QCOMPARE(none[0]["mig-enabled"].as<bool>(), true);
    QVERIFY(none[0]["mig-devices"].IsMap());
    QCOMPARE(none[0]["mig-devices"].size(), size_t{0});  // `{}`: MIG on, no instances
  }

  void migExportFromCluster() {
    const CliResult r = runCli({"mig", "export", "--cluster", kDemoSpec, "--node", "inf-01"});
    VERIFY_CODE(r, cli::kExitOk);
    YAML::Node doc;
    try {
      doc = YAML::Load(r.out);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    const YAML::Node root = doc;
    QCOMPARE(root["version"].as<std::string>(), std::string("v1"));
    const YAML::Node entries = root["mig-configs"]["inf-01"];
    QVERIFY(entries.IsSequence());

    // Expected grouping from the demo cluster itself: GPUs with the same layout share an entry;
    // exclusive GPUs get mig-enabled: false.
    const auto cluster = demoCluster();
    const Node* node = cluster->findNode("inf-01");
    QVERIFY(node);
    struct Group {
      bool mig;
      MigLayout layout;
      std::vector<int> devices;
    };
    std::vector<Group> groups;
    for (int i = 0; i < node->gpuCount(); ++i) {
      const Gpu& gpu = cluster->gpu(node->firstGpu + static_cast<GpuId>(i));
      const bool mig = gpu.sharing.mode == SharingMode::Mig;
      auto same = std::find_if(groups.begin(), groups.end(), [&](const Group& x) {
        return x.mig == mig && (!mig || x.layout == gpu.sharing.mig);
      });
      if (same != groups.end())
        same->devices.push_back(i);
      else
        groups.push_back({mig, gpu.sharing.mig, {i}});
    }
    // The demo spec (resources/demo-cluster.yaml): 0-1, 2-3, 4-5 MIG; 6 whole; 7 MIG.
    QCOMPARE(groups.size(), size_t{5});
    QCOMPARE(groups[3].devices, (std::vector<int>{6}));
    QVERIFY(!groups[3].mig);

    QCOMPARE(entries.size(), groups.size());
    const GpuModel& model = node->gpuModel();
    for (size_t k = 0; k < groups.size(); ++k) {
      const YAML::Node e = entries[k];
      QCOMPARE(e["devices"].as<std::vector<int>>(), groups[k].devices);
      QCOMPARE(e["mig-enabled"].as<bool>(), groups[k].mig);
      QCOMPARE(e["device-filter"].as<std::vector<std::string>>(), model.pciDeviceIds);
      if (!groups[k].mig) {
        QVERIFY2(!e["mig-devices"], "mig-devices must be absent/empty when mig-enabled is false");
        continue;
      }
      Counts counts;
      for (const auto& inst : groups[k].layout)
        ++counts[model.mig->profiles[static_cast<size_t>(inst.profile)].name];
      QCOMPARE(e["mig-devices"].as<Counts>(), counts);
    }
    QCOMPARE(entries[0]["devices"].as<std::vector<int>>(), (std::vector<int>{0, 1}));
    QCOMPARE(entries[1]["devices"].as<std::vector<int>>(), (std::vector<int>{2, 3}));
    QCOMPARE(entries[2]["devices"].as<std::vector<int>>(), (std::vector<int>{4, 5}));
    QCOMPARE(entries[4]["devices"].as<std::vector<int>>(), (std::vector<int>{7}));
  }

  // mig_parted.h: "the intended placement is written as a comment above each entry". Each
  // "# intended placement" comment must be a line of its own directly above the entry it
  // describes, not trailing the previous entry's last line.
  void migExportPlacementCommentsAboveTheirEntries() {
    const CliResult r = runCli({"mig", "export", "--cluster", kDemoSpec, "--node", "inf-01"});
    VERIFY_CODE(r, cli::kExitOk);
    const auto lines = linesOf(r.out);
    const auto cluster = demoCluster();
    const Node* node = cluster->findNode("inf-01");
    QVERIFY(node);
    int comments = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
      const auto pos = lines[i].find("# intended placement");
      if (pos == std::string::npos) continue;
      ++comments;
      QVERIFY2(
          trimmed(lines[i]).rfind('#', 0) == 0,
          qPrintable(QStringLiteral("comment trails a YAML value on line %1: %2\n%3")
                         .arg(i + 1)
                         .arg(QString::fromStdString(lines[i]), QString::fromStdString(r.out))));
      QVERIFY2(i + 1 < lines.size() && trimmed(lines[i + 1]).rfind("- ", 0) == 0,
               qPrintable(QStringLiteral("comment on line %1 is not directly above an entry\n%2")
                              .arg(i + 1)
                              .arg(QString::fromStdString(r.out))));
    }
    QCOMPARE(comments, 4);  // one per MIG-enabled entry (0-1, 2-3, 4-5, 7)
  }

  void migExportToFile() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("mig.yaml")).toStdString();
    const std::vector<std::string> base{"mig",  "export",   "--gpu",
                                        "H100", "--config", "a:0=3g.40gb@0,3g.40gb@4"};
    const CliResult toStdout = runCli(base);
    VERIFY_CODE(toStdout, cli::kExitOk);
    auto withFile = base;
    withFile.emplace_back("-o");
    withFile.push_back(path);
    const CliResult r = runCli(withFile);
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, "wrote " + path);
    VERIFY_NOT_CONTAINS(r.out, "mig-configs");
    QCOMPARE(readFile(QString::fromStdString(path)), toStdout.out);

    auto unwritable = base;
    unwritable.emplace_back("-o");
    unwritable.push_back(dir.filePath(QStringLiteral("no/such/dir/mig.yaml")).toStdString());
    const CliResult bad = runCli(unwritable);
    VERIFY_CODE(bad, cli::kExitUsage);
    VERIFY_CONTAINS(bad.err, "cannot write");
  }

  void migExportErrors_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("errMentions");
    QTest::newRow("nothing") << QStringList{"mig", "export"} << "nothing to export";
    QTest::newRow("config without --gpu")
        << QStringList{"mig", "export", "--config", "a=3g.40gb@0"} << "--gpu";
    QTest::newRow("config without =")
        << QStringList{"mig", "export", "--gpu", "H100", "--config", "a"}
        << "NAME[:DEVICES]=LAYOUT";
    QTest::newRow("unplaced") << QStringList{"mig",  "export",   "--gpu",
                                             "H100", "--config", "a=3g.40gb"}
                              << "PROFILE@START";
    QTest::newRow("invalid layout")
        << QStringList{"mig",  "export",   "--gpu",
                       "H100", "--config", "a=3g.40gb@0,3g.40gb@4,1g.10gb@6"}
        << "check 2";
    QTest::newRow("bad device") << QStringList{"mig",  "export",   "--gpu",
                                               "H100", "--config", "a:x=3g.40gb@0"}
                                << "bad device index";
    QTest::newRow("negative device")
        << QStringList{"mig", "export", "--gpu", "H100", "--config", "a:-1=3g.40gb@0"}
        << "bad device index";
    // A node has at most 64 GPUs in a cluster spec: indices 0..63.
    QTest::newRow("device 64") << QStringList{"mig",  "export",   "--gpu",
                                              "H100", "--config", "a:0,64=3g.40gb@0"}
                               << "bad device index '64' (0..63";
    QTest::newRow("huge device") << QStringList{"mig",  "export",   "--gpu",
                                                "H100", "--config", "a:99999=3g.40gb@0"}
                                 << "bad device index '99999'";
    QTest::newRow("cluster without node")
        << QStringList{"mig", "export", "--cluster", QString::fromStdString(kDemoSpec)} << "--node";
    QTest::newRow("unknown node") << QStringList{"mig",       "export",
                                                 "--cluster", QString::fromStdString(kDemoSpec),
                                                 "--node",    "nope-99"}
                                  << "nope-99";
    QTest::newRow("non-MIG model")
        << QStringList{"mig", "export", "--gpu", "L4", "--config", "a=1g.10gb@0"}
        << "not MIG capable";
    // A config needs a name (it becomes the key under mig-configs and the -c argument of
    // nvidia-mig-parted apply).
    QTest::newRow("empty config name")
        << QStringList{"mig", "export", "--gpu", "H100", "--config", ":0=3g.40gb@0"}
        << ":0=3g.40gb@0";
    // A GPU index listed twice in one entry is a typo, not a config.
    QTest::newRow("duplicate device")
        << QStringList{"mig", "export", "--gpu", "H100", "--config", "a:0,0=3g.40gb@0"}
        << "a:0,0=3g.40gb@0";
  }

  void migExportHighestDevice() {
    const CliResult r = runCli({"mig", "export", "--gpu", "H100", "--config", "a:0,63=3g.40gb@0"});
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, "devices: [0, 63]");
  }

  void migExportErrors() {
    QFETCH(QStringList, args);
    QFETCH(QString, errMentions);
    const CliResult r = runCli(toStd(args));
    VERIFY_CODE(r, cli::kExitUsage);
    VERIFY_CONTAINS(r.err, errMentions.toStdString());
    VERIFY_NOT_CONTAINS(r.out, "mig-configs");
  }

  // ---- cluster -------------------------------------------------------------------------------

  // export writes the explicit form; validating that file gives the demo's counts again.
  // A template name that is not a plain word is quoted, so the printed YAML still loads.
  void importTopoQuotesOddNames() {
    const std::string topo = std::string(TESSERA_TEST_DATA) + "/topo/pcie-8gpu.txt";
    const CliResult r =
        runCli({"cluster", "import-topo", topo.c_str(), "--model", "L40S", "--name", "a: [b"});
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, "\"a: [b\":");
    VERIFY_CODE(runCli({"cluster", "import-topo", topo.c_str(), "--model", "L40S", "--name", ""}),
                cli::kExitUsage);
  }

  void clusterExportRoundTrip() {
    QTemporaryDir dir;
    const std::string file = dir.filePath("explicit.yaml").toStdString();
    const CliResult r = runCli({"cluster", "export", "-o", file});
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, "wrote " + file);
    const CliResult v = runCli({"cluster", "validate", file});
    VERIFY_CODE(v, cli::kExitOk);
    VERIFY_CONTAINS(v.out, "OK (62 nodes, 392 GPUs, 35 NVLink domains)");
    const CliResult toStdout = runCli({"cluster", "export"});
    VERIFY_CODE(toStdout, cli::kExitOk);
    VERIFY_CONTAINS(toStdout.out, "nvlink_rack: \"nvl72-nvl-1\"");
    VERIFY_CODE(runCli({"cluster", "export", "/nonexistent.yaml"}), cli::kExitUsage);
  }

  void clusterShowDemo() {
    const auto demo = demoCluster();
    const CliResult r = runCli({"cluster", "show"});
    VERIFY_CODE(r, cli::kExitOk);
    QCOMPARE(demo->gpus().size(), size_t{392});  // resources/demo-cluster.yaml header comment
    VERIFY_CONTAINS(r.out, "GPUs: 392");
    VERIFY_CONTAINS(r.out, "Nodes: " + std::to_string(demo->nodes().size()));
    VERIFY_CONTAINS(r.out, "1 draining");
    VERIFY_CONTAINS(r.out, "1 down");
    // The built-in demo and the file it is compiled from say the same.
    const CliResult fromFile = runCli({"cluster", "show", kDemoSpec});
    VERIFY_CODE(fromFile, cli::kExitOk);
    QCOMPARE(fromFile.out, r.out);
  }

  void clusterShowJson() {
    const auto demo = demoCluster();
    const CliResult r = runCli({"cluster", "show", "-o", "json"});
    VERIFY_CODE(r, cli::kExitOk);
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(r.out);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    QCOMPARE(j["gpus"].get<int>(), 392);
    QCOMPARE(j["name"].get<std::string>(), demo->name);
    QCOMPARE(j["nodes"]["total"].get<size_t>(), demo->nodes().size());
    QCOMPARE(j["nodes"]["draining"].get<int>(), 1);
    QCOMPARE(j["nodes"]["down"].get<int>(), 1);
    int spines = 0;
    for (const auto& sw : demo->switches()) spines += sw.tier == SwitchTier::Spine ? 1 : 0;
    QCOMPARE(j["spines"].get<int>(), spines);
    int gpusPerModel = 0;
    for (const auto& m : j["models"]) gpusPerModel += m["gpus"].get<int>();
    QCOMPARE(gpusPerModel, 392);
    int leafGpus = 0;
    for (const auto& l : j["leafs"]) leafGpus += l["gpus"].get<int>();
    QCOMPARE(leafGpus, 392);
    int migGpus = 0;
    for (const auto& g : demo->gpus()) migGpus += g.sharing.mode == SharingMode::Mig ? 1 : 0;
    QCOMPARE(j["sharing"]["mig_gpus"].get<int>(), migGpus);
  }

  void clusterShowFileJson() {
    const CliResult r = runCli({"cluster", "show", kGoodSpec, "-o", "json"});
    VERIFY_CODE(r, cli::kExitOk);
    const auto j = nlohmann::json::parse(r.out, nullptr, false);
    QVERIFY(!j.is_discarded());
    QCOMPARE(j["name"].get<std::string>(), std::string("cli-good"));
    QCOMPARE(j["gpus"].get<int>(), 16);
    QCOMPARE(j["sharing"]["mig_gpus"].get<int>(), 2);
    QCOMPARE(j["sharing"]["mig_instances"].get<int>(), 8);
    QCOMPARE(j["sharing"]["time_sliced_gpus"].get<int>(), 1);
  }

  void clusterValidate() {
    const CliResult good = runCli({"cluster", "validate", kGoodSpec});
    VERIFY_CODE(good, cli::kExitOk);
    VERIFY_CONTAINS(good.out, kGoodSpec + ": OK (2 nodes, 16 GPUs, 2 NVLink domains)");
    QVERIFY2(good.err.empty(), good.err.c_str());

    const CliResult broken = runCli({"cluster", "validate", kBrokenSpec});
    VERIFY_CODE(broken, cli::kExitInvalid);
    // broken-cluster.yaml line 26 holds the overlapping layout (reference 1.5, check 2).
    VERIFY_CONTAINS(broken.err, kBrokenSpec + ":26:");
    VERIFY_CONTAINS(broken.err, "check 2");
    VERIFY_NOT_CONTAINS(broken.out, "OK");

    // Several files: each is reported; one broken file makes the whole run fail.
    const CliResult both = runCli({"cluster", "validate", kGoodSpec, kBrokenSpec});
    VERIFY_CODE(both, cli::kExitInvalid);
    VERIFY_CONTAINS(both.out, kGoodSpec + ": OK");
    VERIFY_CONTAINS(both.err, kBrokenSpec + ":26:");

    const CliResult demo = runCli({"cluster", "validate", kDemoSpec});
    VERIFY_CODE(demo, cli::kExitOk);
    VERIFY_CONTAINS(demo.out, "392 GPUs");
  }

  void clusterValidateUnknownField() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("typo.yaml"));
    QVERIFY(writeFile(
        path,
        "version: 1\nname: typo\nnode_templates:\n  box:\n    gpu_modle: H100\n    gpus: 8\n"));
    const CliResult r = runCli({"cluster", "validate", path.toStdString()});
    VERIFY_CODE(r, cli::kExitInvalid);
    VERIFY_CONTAINS(r.err, path.toStdString() + ":5:");
    VERIFY_CONTAINS(r.err, "gpu_modle");
  }

  void clusterNodeDgx() {
    const auto demo = demoCluster();
    const Node* node = demo->findNode("pod-a-01");
    QVERIFY(node);
    const CliResult r = runCli({"cluster", "node", "pod-a-01"});
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, "pod-a-01: 8 x H100-SXM5-80GB");
    VERIFY_CONTAINS(r.out, "NV18");
    VERIFY_CONTAINS(r.out, "NUMA zones: " + std::to_string(node->hw->numa.size()));
    for (int i = 0; i < node->gpuCount(); ++i) {
      const auto line = lineStartingWith(r.out, "GPU" + std::to_string(i) + ":");
      QVERIFY2(line, r.out.c_str());
      VERIFY_CONTAINS(*line,
                      "NUMA " + std::to_string(node->hw->gpuNuma[static_cast<size_t>(i)]) + ",");
      VERIFY_CONTAINS(*line, "exclusive");
    }
    // Link matrix rows: X on the diagonal, NV18 elsewhere (DGX H100, reference 3.1).
    for (int a = 0; a < 8; ++a) {
      std::optional<std::string> row;
      for (const auto& line : linesOf(r.out))
        if (line.rfind("GPU" + std::to_string(a) + " ", 0) == 0) row = line;
      QVERIFY2(row, r.out.c_str());
      std::istringstream in(*row);
      std::vector<std::string> cells;
      for (std::string t; in >> t;) cells.push_back(t);
      // GPU0..7, then the 8 NIC columns: each GPU's own NIC shares its PCIe switch (PIX),
      // NICs on the same socket are NODE, the others SYS.
      QCOMPARE(cells.size(), size_t{17});
      for (int b = 0; b < 8; ++b)
        QCOMPARE(cells[static_cast<size_t>(b + 1)], std::string(a == b ? "X" : "NV18"));
      for (int k = 0; k < 8; ++k)
        QCOMPARE(cells[static_cast<size_t>(9 + k)],
                 std::string(k == a ? "PIX" : (k / 4 == a / 4 ? "NODE" : "SYS")));
    }
    VERIFY_CONTAINS(r.out, "NIC0: mlx5_0, 400 Gb/s, NUMA 0");
  }

  void migExportWarnsAboutComputeInstances() {
    const CliResult r =
        runCli({"mig", "export", "--gpu", "H100", "--config", "split=3g.40gb@0(1c+2c),3g.40gb@4"});
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.err, "compute instances of 3g.40gb@0(1c+2c) are not exported");
    VERIFY_CONTAINS(r.out, "\"3g.40gb\": 2");
  }

  void clusterNodeMigAndState() {
    const CliResult inf = runCli({"cluster", "node", "inf-01"});
    VERIFY_CODE(inf, cli::kExitOk);
    const auto gpu4 = lineStartingWith(inf.out, "GPU4:");
    QVERIFY2(gpu4, inf.out.c_str());
    VERIFY_CONTAINS(*gpu4, "MIG 3g.40gb@0,3g.40gb@4");
    const auto gpu6 = lineStartingWith(inf.out, "GPU6:");
    QVERIFY2(gpu6, inf.out.c_str());
    VERIFY_CONTAINS(*gpu6, "exclusive");

    const CliResult drain = runCli({"cluster", "node", "pod-a-07"});
    VERIFY_CODE(drain, cli::kExitOk);
    VERIFY_CONTAINS(drain.out, "State: draining");
    VERIFY_CONTAINS(drain.out, "maintenance=firmware");

    const CliResult fromSpec = runCli({"cluster", "node", "gpu-02", "--spec", kGoodSpec});
    VERIFY_CODE(fromSpec, cli::kExitOk);
    VERIFY_CONTAINS(fromSpec.out, "pool: infer");
    VERIFY_CONTAINS(fromSpec.out, "time-sliced x4");
    VERIFY_CONTAINS(fromSpec.out, "Fabric: leaf leaf-a, spine spine-a");
  }

  // MPS GPUs name their server's policy, on the GPU or inside its MIG instances.
  void clusterNodeMps() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("mps.yaml"));
    QVERIFY(writeFile(path, test::kMpsClusterSpec));
    const std::string spec = path.toStdString();
    const CliResult p1 = runCli({"cluster", "node", "p1", "--spec", spec});
    VERIFY_CODE(p1, cli::kExitOk);
    const auto gpu0 = lineStartingWith(p1.out, "GPU0:");
    QVERIFY2(gpu0, p1.out.c_str());
    VERIFY_CONTAINS(*gpu0, "MPS (thread budget 150 %, co-location by user)");
    // node_sharing: one is said; all, as CUDA has it, goes without.
    const QString onePath = dir.filePath(QStringLiteral("mps-one.yaml"));
    QVERIFY(writeFile(onePath, test::mpsClusterSpecOneSharing()));
    const CliResult one = runCli({"cluster", "node", "p1", "--spec", onePath.toStdString()});
    VERIFY_CODE(one, cli::kExitOk);
    VERIFY_CONTAINS(one.out,
                    "MPS (thread budget 150 %, co-location by user, one GPU per node at a time)");
    QVERIFY2(p1.out.find("per node") == std::string::npos, p1.out.c_str());
    const CliResult m1 = runCli({"cluster", "node", "m1", "--spec", spec});
    VERIFY_CODE(m1, cli::kExitOk);
    VERIFY_CONTAINS(m1.out,
                    "MIG 3g.20gb@0,3g.20gb@4, MPS in the instances (thread budget 100 %, "
                    "co-location by team)");
  }

  void clusterNodeUnknown() {
    const CliResult r = runCli({"cluster", "node", "nope-01"});
    VERIFY_CODE(r, cli::kExitUsage);
    VERIFY_CONTAINS(r.err, "nope-01");
    QVERIFY(r.out.empty());
  }

  void importTopoRoundTrip_data() {
    QTest::addColumn<QString>("fixture");
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("modelId");
    QTest::newRow("dgx-h100") << "dgx-h100.txt"
                              << "H100"
                              << "H100-SXM5-80GB";
    QTest::newRow("dgx-h100 ansi+crlf") << "dgx-h100-ansi-crlf.txt"
                                        << "H100"
                                        << "H100-SXM5-80GB";
    QTest::newRow("dgx-a100 old format") << "dgx-a100-old.txt"
                                         << "A100-40GB"
                                         << "A100-SXM4-40GB";
    QTest::newRow("pcie 8 gpu") << "pcie-8gpu.txt"
                                << "L40S"
                                << "L40S";
  }

  void importTopoRoundTrip() {
    QFETCH(QString, fixture);
    QFETCH(QString, model);
    QFETCH(QString, modelId);
    const std::string path = kData + "/topo/" + fixture.toStdString();
    const CliResult r =
        runCli({"cluster", "import-topo", path, "--model", model.toStdString(), "--name", "imp"});
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, "node_templates");

    auto topo = parseNvidiaSmiTopo(readFile(QString::fromStdString(path)), path);
    QVERIFY(topo.ok());
    const int n = static_cast<int>(topo->gpus.size());

    const std::string spec = specWithTemplate(r.out, "imp");
    auto cluster = loadClusterSpec(spec, "imported.yaml");
    QVERIFY2(cluster.ok(),
             qPrintable(QString::fromStdString(
                 (cluster.ok() ? std::string() : cluster.error().str()) + "\n" + spec)));
    const Node* node = (*cluster)->findNode("n1");
    QVERIFY(node);
    QCOMPARE(node->hw->templateName, std::string("imp"));
    QCOMPARE(node->gpuModel().id, modelId.toStdString());
    QCOMPARE(node->gpuCount(), n);
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        QVERIFY2(
            node->hw->link(a, b) == topo->gpuGpu[static_cast<size_t>(a)][static_cast<size_t>(b)],
            qPrintable(
                QStringLiteral("GPU%1-GPU%2: %3 after import, %4 in the topo")
                    .arg(a)
                    .arg(b)
                    .arg(QString::fromStdString(node->hw->link(a, b).str()),
                         QString::fromStdString(
                             topo->gpuGpu[static_cast<size_t>(a)][static_cast<size_t>(b)].str()))));
    // NUMA zones from the affinity column survive the round trip.
    std::vector<int> numa;
    for (int v : topo->numaAffinity) numa.push_back(v < 0 ? 0 : v);
    QCOMPARE(node->hw->gpuNuma, numa);
  }

  void importTopoDefaultName() {
    const CliResult r = runCli({"cluster", "import-topo", kTopoDgxH100, "--model", "H100"});
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, "8 GPUs, 2 NUMA zones");
    VERIFY_CONTAINS(r.out, "NVLink nvswitch");
    auto cluster = loadClusterSpec(specWithTemplate(r.out, "imported-node"), "imported.yaml");
    QVERIFY2(cluster.ok(), cluster.ok() ? "" : cluster.error().str().c_str());
  }

  // A topo text whose first line starts with a space (the parser accepts it) must still give a
  // template that loads: the YAML literal block needs an explicit indentation indicator then.
  void importTopoLeadingSpaceRoundTrip() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("indented-topo.txt"));
    QVERIFY(writeFile(path, " " + readFile(QString::fromStdString(kTopoDgxH100))));
    const CliResult r =
        runCli({"cluster", "import-topo", path.toStdString(), "--model", "H100", "--name", "imp"});
    VERIFY_CODE(r, cli::kExitOk);
    const std::string spec = specWithTemplate(r.out, "imp");
    auto cluster = loadClusterSpec(spec, "imported.yaml");
    QVERIFY2(cluster.ok(),
             qPrintable(QString::fromStdString(
                 (cluster.ok() ? std::string() : cluster.error().str()) + "\n" + spec)));
    QCOMPARE((*cluster)->nodes().front().gpuCount(), 8);
  }

  // The spec reader takes at most 64 GPUs per node template: 64 imports and loads back, 65 is
  // refused instead of printing a template nobody can load.
  void importTopoGpuLimit() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString at = dir.filePath(QStringLiteral("topo-64.txt"));
    QVERIFY(writeFile(at, syntheticTopo(64)));
    const CliResult ok =
        runCli({"cluster", "import-topo", at.toStdString(), "--model", "L40S", "--name", "imp"});
    VERIFY_CODE(ok, cli::kExitOk);
    auto cluster = loadClusterSpec(specWithTemplate(ok.out, "imp"), "imported.yaml");
    QVERIFY2(cluster.ok(), cluster.ok() ? "" : cluster.error().str().c_str());
    QCOMPARE((*cluster)->nodes().front().gpuCount(), 64);

    const QString over = dir.filePath(QStringLiteral("topo-65.txt"));
    QVERIFY(writeFile(over, syntheticTopo(65)));
    const CliResult r = runCli({"cluster", "import-topo", over.toStdString(), "--model", "L40S"});
    VERIFY_CODE(r, cli::kExitInvalid);
    VERIFY_CONTAINS(r.err, over.toStdString());
    VERIFY_CONTAINS(r.err, "65 GPUs");
    VERIFY_CONTAINS(r.err, "at most 64 GPUs per node");
    QVERIFY2(r.out.empty(), r.out.c_str());
  }

  void importTopoErrors() {
    const CliResult missing =
        runCli({"cluster", "import-topo", "/nonexistent/topo.txt", "--model", "H100"});
    VERIFY_CODE(missing, cli::kExitUsage);
    VERIFY_CONTAINS(missing.err, "/nonexistent/topo.txt");

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("garbage.txt"));
    QVERIFY(writeFile(path, "this is not nvidia-smi output\n"));
    const CliResult garbage =
        runCli({"cluster", "import-topo", path.toStdString(), "--model", "H100"});
    VERIFY_CODE(garbage, cli::kExitInvalid);
    VERIFY_CONTAINS(garbage.err, path.toStdString());
    QVERIFY(garbage.out.empty());
  }

  // ---- --catalog -----------------------------------------------------------------------------

  void catalogExtraModel() {
    const CliResult without = runCli({"gpus", "show", "X1000"});
    VERIFY_CODE(without, cli::kExitUsage);

    const CliResult r = runCli({"--catalog", kExtraCatalog, "gpus", "show", "X1000"});
    VERIFY_CODE(r, cli::kExitOk);
    VERIFY_CONTAINS(r.out, "X1000: Example X1000 96GB");
    const auto row = lineStartingWith(r.out, "2g.48gb");
    QVERIFY2(row, r.out.c_str());
    VERIFY_CONTAINS(*row, "{0,2}:2");

    // The option is accepted after the verb, too, and aliases of the new model work.
    const CliResult after = runCli({"mig", "validate", "--gpu", "X1K",
                                    "2g.48gb@0,1g.24gb@2,1g.24gb@3", "--catalog", kExtraCatalog});
    VERIFY_CODE(after, cli::kExitOk);
    VERIFY_CONTAINS(after.out, "valid on X1000");

    // Merged over (not instead of) the built-in catalog.
    const CliResult list = runCli({"--catalog", kExtraCatalog, "gpus", "list"});
    VERIFY_CODE(list, cli::kExitOk);
    QCOMPARE(linesOf(list.out).size(), GpuCatalog::builtin().models().size() + 2);
    QVERIFY(lineStartingWith(list.out, "X1000"));
    QVERIFY(lineStartingWith(list.out, "H100-SXM5-80GB"));
  }

  // A model that would shadow a built-in name (here the alias H100) is refused, naming the file,
  // rather than merged so that `--gpu H100` silently means another model.
  void catalogNameClash() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::string text = readFile(QString::fromStdString(kExtraCatalog));
    const std::string aliases = "aliases: [X1K]";
    QVERIFY(contains(text, aliases));
    text.replace(text.find(aliases), aliases.size(), "aliases: [X1K, H100]");
    const QString path = dir.filePath(QStringLiteral("clash.yaml"));
    QVERIFY(writeFile(path, text));
    const CliResult r =
        runCli({"--catalog", path.toStdString(), "mig", "validate", "--gpu", "H100", "3g.40gb@0"});
    VERIFY_CODE(r, cli::kExitUsage);
    VERIFY_CONTAINS(r.err, "GPU catalog " + path.toStdString() + ": ");
    VERIFY_CONTAINS(r.err, "X1000");
    QVERIFY2(r.out.empty(), r.out.c_str());
  }

  void catalogBroken_data() {
    QTest::addColumn<QStringList>("args");
    QTest::newRow("gpus list") << QStringList{"gpus", "list"};
    QTest::newRow("gpus show") << QStringList{"gpus", "show", "H100"};
    QTest::newRow("mig validate") << QStringList{"mig", "validate", "--gpu", "H100", "3g.40gb@0"};
    QTest::newRow("mig export --config")
        << QStringList{"mig", "export", "--gpu", "H100", "--config", "a=3g.40gb@0"};
    QTest::newRow("import-topo") << QStringList{
        "cluster", "import-topo", QString::fromStdString(kTopoDgxH100), "--model", "H100"};
    // The catalog is the broken input here, not the cluster spec: same exit code as above.
    QTest::newRow("cluster show") << QStringList{"cluster", "show"};
    // Must not fall back to the built-in catalog and export anyway.
    QTest::newRow("mig export --cluster") << QStringList{
        "mig", "export", "--cluster", QString::fromStdString(kDemoSpec), "--node", "inf-01"};
  }

  void catalogBroken() {
    QFETCH(QStringList, args);
    std::vector<std::string> all{"--catalog", kBrokenCatalog};
    for (const auto& a : toStd(args)) all.push_back(a);
    const CliResult r = runCli(all);
    VERIFY_CODE(r, cli::kExitUsage);
    // broken-catalog.yaml line 12: max: 0.
    VERIFY_CONTAINS(r.err, kBrokenCatalog + ":12:");
    VERIFY_CONTAINS(r.err, "max");
    QVERIFY2(r.out.empty(), r.out.c_str());
  }
};

QTEST_APPLESS_MAIN(TstCli)
#include "tst_cli.moc"
