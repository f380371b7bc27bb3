// `tessera ctl` without a server: where the connection settings come from (flag > environment >
// config file), config file errors with their line, jobs from flags and from a YAML file into
// the API's JobSpec, reservation windows, usage errors (exit 2, before any connection), an
// unreachable server (exit 3) and the help texts. The calls against a real tesserad are tested
// end to end elsewhere.
#include <QDir>
#include <QTemporaryDir>
#include <QtTest>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "app/cli_test_util.h"
#include "cli/cli_ctl.h"

// Lets QCOMPARE print std::string values when a comparison fails.
template <>
inline char* QTest::toString<std::string>(const std::string& s) {
  return qstrdup(s.c_str());
}

using namespace tessera;
using namespace tessera::test;
using namespace tessera::cli::ctl;

namespace {

// A port on 127.0.0.1 that nothing listens on: bound by the kernel's choice, then closed.
int freePort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  // NOLINTNEXTLINE: the sockets API takes sockaddr*.
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return -1;
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  close(fd);
  return ntohs(addr.sin_port);
}

EnvLookup envOf(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end() || it->second.empty()) return std::nullopt;
    return it->second;
  };
}

std::string errorOf(const Error& e) {
  return e.str();
}

}  // namespace

class TstCliCtl : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  std::string path(const char* name) const { return dir_.filePath(name).toStdString(); }
  std::string write(const char* name, const std::string& text) const {
    writeFile(dir_.filePath(name), text);
    return path(name);
  }

 private slots:
  // The verb runs in this process: its settings must come from the test, not from the account
  // running it.
  void initTestCase() {
    QVERIFY(dir_.isValid());
    qputenv("HOME", dir_.path().toUtf8());
    for (const char* v : {"TESSERA_SERVER", "TESSERA_TOKEN", "TESSERA_CA", "TESSERA_CTL_CONFIG"})
      qunsetenv(v);
  }

  void helpListsEveryCall() {
    const CliResult r = runCli({"ctl", "--help"});
    QVERIFY2(r.code == 0, qPrintable(describe(r)));
    for (const char* call :
         {"submit",  "get",       "list",    "cancel",      "hold",  "release", "priority",
          "move",    "pin",       "preempt", "repartition", "drain", "undrain", "quota",
          "reserve", "unreserve", "explain", "snapshot",    "watch", "metrics", "whoami",
          "health",  "backup",    "report",  "telemetry",   "node"}) {
      QVERIFY2(contains(r.out, std::string("\n  ") + call + " "), call);
      const CliResult sub = runCli({"ctl", call, "--help"});
      QVERIFY2(sub.code == 0, qPrintable(describe(sub)));
      QVERIFY2(contains(sub.out, "tessera ctl --help"), call);  // the shared footer
    }
    for (const char* option : {"--server", "--token", "--token-file", "--ca", "--server-name",
                               "--config", "--output", "--timeout"})
      QVERIFY2(contains(r.out, option), option);
    for (const char* text : {"TESSERA_SERVER", "TESSERA_TOKEN", "TESSERA_CA", "TESSERA_CTL_CONFIG",
                             "~/.config/tessera/ctl.yaml", "Exit codes", "3 server unreachable",
                             "4 the server refused"})
      QVERIFY2(contains(r.out, text), text);
    QVERIFY(contains(runCli({"--help"}).out, "ctl"));
    // Calls with calls of their own list them and share the footer.
    QVERIFY(contains(runCli({"ctl", "telemetry", "--help"}).out, "\n  push "));
    const CliResult node = runCli({"ctl", "node", "--help"});
    QVERIFY(contains(node.out, "\n  list ") && contains(node.out, "\n  admit "));
    const CliResult push = runCli({"ctl", "telemetry", "push", "--help"});
    QVERIFY2(push.code == 0, qPrintable(describe(push)));
    for (const char* text : {"FILE", "--node", "--source", "tessera ctl --help"})
      QVERIFY2(contains(push.out, text), text);
    // Every action predicts with --dry-run.
    for (const char* action : {"cancel", "hold", "release", "priority", "move", "pin", "preempt",
                               "repartition", "drain", "undrain", "quota", "reserve", "unreserve"})
      QVERIFY2(contains(runCli({"ctl", action, "--help"}).out, "--dry-run"), action);
  }

  void configFileIsReadAndRelativePathsFollowIt() {
    const std::string cfg = write("ctl.yaml",
                                  "server: cfg-host:1\n"
                                  "token_file: token.txt\n"
                                  "ca: certs/ca.pem\n"
                                  "server_name: cfg-name\n");
    write("token.txt", "  file-token\n\n");
    auto s = loadConfigFile(cfg);
    QVERIFY2(s, s ? "" : s.error().str().c_str());
    QCOMPARE(s->server, std::string("cfg-host:1"));
    QCOMPARE(s->tokenFile, path("token.txt"));
    QCOMPARE(s->ca, path("certs/ca.pem"));
    GlobalFlags flags;
    flags.config = cfg;
    auto o = resolveOptions(flags, envOf({}));
    QVERIFY2(o, o ? "" : o.error().str().c_str());
    QCOMPARE(o->address, std::string("cfg-host:1"));
    QCOMPARE(o->token, std::string("file-token"));  // trimmed
    QCOMPARE(o->caFile, path("certs/ca.pem"));
    QCOMPARE(o->serverName, std::string("cfg-name"));
    // Nothing anywhere: the defaults.
    auto none = resolveOptions(GlobalFlags{}, envOf({}));
    QVERIFY(none);
    QCOMPARE(none->address, std::string("127.0.0.1:50551"));
    QVERIFY(none->token.empty() && none->caFile.empty());
    QCOMPARE(none->timeoutSeconds, 30.0);
    QVERIFY(parseConfig("", "empty.yaml"));  // an empty config sets nothing
  }

  void flagBeatsEnvironmentBeatsConfigFile() {
    const std::string cfg = write("prec.yaml",
                                  "server: cfg:1\ntoken: cfg-token\nca: /cfg/ca.pem\n"
                                  "server_name: cfg-name\n");
    const auto env = envOf({{"TESSERA_SERVER", "env:2"},
                            {"TESSERA_TOKEN", "env-token"},
                            {"TESSERA_CA", "/env/ca.pem"},
                            {"TESSERA_CTL_CONFIG", cfg}});
    GlobalFlags flags;
    auto fromEnv = resolveOptions(flags, env);
    QVERIFY2(fromEnv, fromEnv ? "" : fromEnv.error().str().c_str());
    QCOMPARE(fromEnv->address, std::string("env:2"));
    QCOMPARE(fromEnv->token, std::string("env-token"));
    QCOMPARE(fromEnv->caFile, std::string("/env/ca.pem"));
    QCOMPARE(fromEnv->serverName, std::string("cfg-name"));  // no variable for it: the file's
    flags.connection = {"flag:3", "flag-token", "", "/flag/ca.pem", "flag-name"};
    flags.timeout = 2.5;
    auto fromFlags = resolveOptions(flags, env);
    QVERIFY(fromFlags);
    QCOMPARE(fromFlags->address, std::string("flag:3"));
    QCOMPARE(fromFlags->token, std::string("flag-token"));
    QCOMPARE(fromFlags->caFile, std::string("/flag/ca.pem"));
    QCOMPARE(fromFlags->serverName, std::string("flag-name"));
    QCOMPARE(fromFlags->timeoutSeconds, 2.5);
    // A token file given by flag beats the environment's token; a source giving both is wrong.
    flags.connection = {};
    flags.connection.tokenFile = write("flag-token.txt", "from-file\n");
    auto fileToken = resolveOptions(flags, env);
    QVERIFY(fileToken);
    QCOMPARE(fileToken->token, std::string("from-file"));
    flags.connection.token = "also";
    auto both = resolveOptions(flags, env);
    QVERIFY(!both);
    QVERIFY(contains(errorOf(both.error()), "--token or --token-file"));
    flags.connection = {};
    flags.connection.tokenFile = path("missing-token.txt");
    QVERIFY(!resolveOptions(flags, env));
    QVERIFY(!resolveOptions(GlobalFlags{{}, "", 0, "table"}, envOf({})));  // no timeout
  }

  void configFileLocation() {
    const std::string home = path("home");
    QVERIFY(QDir().mkpath(QString::fromStdString(home + "/.config/tessera")));
    QVERIFY(!configPath("", envOf({{"HOME", home}})));  // the default file is optional
    write("home/.config/tessera/ctl.yaml", "server: home:1\n");
    QCOMPARE(configPath("", envOf({{"HOME", home}})).value_or(""),
             home + "/.config/tessera/ctl.yaml");
    QCOMPARE(
        configPath("", envOf({{"HOME", home}, {"TESSERA_CTL_CONFIG", "/e.yaml"}})).value_or(""),
        std::string("/e.yaml"));
    QCOMPARE(configPath("/f.yaml", envOf({{"HOME", home}, {"TESSERA_CTL_CONFIG", "/e.yaml"}}))
                 .value_or(""),
             std::string("/f.yaml"));
    auto o = resolveOptions(GlobalFlags{}, envOf({{"HOME", home}}));
    QVERIFY(o);
    QCOMPARE(o->address, std::string("home:1"));
    // A config file named explicitly must exist.
    GlobalFlags flags;
    flags.config = path("nope.yaml");
    auto missing = resolveOptions(flags, envOf({}));
    QVERIFY(!missing);
    QVERIFY(contains(errorOf(missing.error()), "nope.yaml"));
  }

  void configFileErrorsNameTheLine() {
    auto typo = parseConfig("server: a:1\nsever: b:2\n", "ctl.yaml");
    QVERIFY(!typo);
    QVERIFY2(contains(errorOf(typo.error()), "ctl.yaml:2:") &&
                 contains(errorOf(typo.error()), "'sever'"),
             errorOf(typo.error()).c_str());
    auto list = parseConfig("server: a:1\n\ntoken: [a, b]\n", "ctl.yaml");
    QVERIFY(!list);
    QVERIFY2(contains(errorOf(list.error()), "ctl.yaml:3:"), errorOf(list.error()).c_str());
    auto syntax = parseConfig("server: a:1\ntoken: [unclosed\n", "ctl.yaml");
    QVERIFY(!syntax);
    QVERIFY2(contains(errorOf(syntax.error()), "ctl.yaml:"), errorOf(syntax.error()).c_str());
    auto notMap = parseConfig("- server\n", "ctl.yaml");
    QVERIFY(!notMap);
    QVERIFY(contains(errorOf(notMap.error()), "ctl.yaml:1:"));
    // Through the verb: exit 2 and the file:line on stderr, before any connection.
    const std::string bad = write("bad.yaml", "server: x:1\ntimeout: 3\n");
    const CliResult r = runCli({"ctl", "--config", bad, "whoami"});
    QCOMPARE(r.code, 2);
    QVERIFY2(contains(r.err, "bad.yaml:2:") && contains(r.err, "timeout"), qPrintable(describe(r)));
  }

  void submitFlagsBecomeAJobSpec() {
    SubmitFlags f;
    f.name = "train";
    f.team = "vision";
    f.priority = "production-training";
    f.workloadClass = "training";
    f.tasks = "4";
    f.fraction = "0.25";
    f.vramMib = "8192";
    f.cpus = "8";
    f.memoryGib = "64";
    f.models = {"H100", "A100-80GB"};
    f.pool = "gpu";
    f.topology = "nvlink-domain";
    f.topologyRequired = true;
    f.runtime = "2h";
    f.checkpointInterval = "30m";
    f.held = true;
    f.pinGpus = {"n1/0"};
    f.pinNodes = {"n2"};
    auto s = specFromFlags(f);
    QVERIFY2(s, s ? "" : s.error().str().c_str());
    QCOMPARE(s->name(), std::string("train"));
    QCOMPARE(s->team(), std::string("vision"));
    QCOMPARE(s->priority_class(), std::string("production-training"));
    QCOMPARE(s->workload_class(), tessera::v1::WORKLOAD_CLASS_TRAINING);
    QCOMPARE(s->tasks(), 4u);
    QVERIFY(s->per_task().has_milli());
    QCOMPARE(s->per_task().milli(), 250u);
    QCOMPARE(s->per_task().vram_mib(), int64_t{8192});
    QCOMPARE(s->cpus_per_task(), 8u);
    QCOMPARE(s->memory_mib_per_task(), int64_t{64} * 1024);
    QCOMPARE(s->gpu_models_size(), 2);
    QCOMPARE(s->pool(), std::string("gpu"));
    QCOMPARE(s->topology(), tessera::v1::TOPOLOGY_LEVEL_NVLINK_DOMAIN);
    QVERIFY(s->topology_required());
    QCOMPARE(s->estimated_runtime_s(), int64_t{7200});
    QCOMPARE(s->checkpoint_interval_s(), int64_t{1800});
    QVERIFY(s->held());
    QCOMPARE(s->pin_gpus(0), std::string("n1/0"));
    QCOMPARE(s->pin_nodes(0), std::string("n2"));
    QVERIFY(!s->has_preemptible());  // left to the priority class's default
    SubmitFlags mig;
    mig.team = "vision";
    mig.mig = "3g.40gb";
    auto m = specFromFlags(mig);
    QVERIFY(m);
    QCOMPARE(m->per_task().mig_profile(), std::string("3g.40gb"));
  }

  void submitFlagErrors() {
    SubmitFlags f;
    f.team = "vision";
    QVERIFY(contains(errorOf(specFromFlags(f).error()), "give one of --gpus"));
    f.gpus = "2";
    f.mig = "1g.10gb";
    QVERIFY(contains(errorOf(specFromFlags(f).error()), "only one of --gpus"));
    f.mig.clear();
    f.fraction = "0.5";
    QVERIFY(!specFromFlags(f));
    f.fraction.clear();
    QVERIFY(specFromFlags(f));
    const std::vector<std::pair<std::string SubmitFlags::*, std::string>> bad{
        {&SubmitFlags::gpus, "0"},        {&SubmitFlags::gpus, "two"},
        {&SubmitFlags::tasks, "-1"},      {&SubmitFlags::workloadClass, "research"},
        {&SubmitFlags::topology, "rack"}, {&SubmitFlags::runtime, "soon"},
        {&SubmitFlags::memoryGib, "1.5"}, {&SubmitFlags::checkpointInterval, "-5m"}};
    for (const auto& [field, value] : bad) {
      SubmitFlags g = f;
      g.*field = value;
      auto e = specFromFlags(g);
      QVERIFY2(!e, value.c_str());
      QVERIFY2(contains(errorOf(e.error()), "'" + value + "'"), errorOf(e.error()).c_str());
    }
    for (const char* fraction : {"0", "1.5", "abc", "-0.25"}) {
      SubmitFlags g;
      g.team = "vision";
      g.fraction = fraction;
      QVERIFY2(!specFromFlags(g), fraction);
    }
    SubmitFlags noTeam;
    noTeam.gpus = "1";
    QVERIFY(contains(errorOf(specFromFlags(noTeam).error()), "--team"));
    SubmitFlags required = f;
    required.topologyRequired = true;
    QVERIFY(contains(errorOf(specFromFlags(required).error()), "--topology"));
    SubmitFlags pin = f;
    pin.pinGpus = {"n1"};
    QVERIFY(contains(errorOf(specFromFlags(pin).error()), "NODE/INDEX"));
    // Through the verb: exit 2 without contacting anyone (the server would give 3).
    const std::string server = "127.0.0.1:" + std::to_string(freePort());
    const CliResult r = runCli({"ctl", "--server", server, "submit", "--team", "vision", "--gpus",
                                "1", "--fraction", "0.5"});
    QCOMPARE(r.code, 2);
    QVERIFY2(contains(r.err, "only one of --gpus"), qPrintable(describe(r)));
    const CliResult both = runCli({"ctl", "--server", server, "submit", "--file",
                                   write("one.yaml", "- {team: a, gpus: 1}\n"), "--team", "b"});
    QCOMPARE(both.code, 2);
    QVERIFY(contains(both.err, "--file"));
  }

  void submitFileBecomesJobSpecs() {
    const std::string text =
        "# two jobs, one batch\n"
        "- name: train\n"
        "  team: vision\n"
        "  priority: production-training\n"
        "  class: training\n"
        "  tasks: 2\n"
        "  gpus: 8\n"
        "  model: H100\n"
        "  topology: {level: node, required: true}\n"
        "  runtime: 1h30m\n"
        "  checkpoint_interval: 600\n"
        "  held: true\n"
        "- team: nlp\n"
        "  fraction: {milli: 500, vram_mib: 4096}\n"
        "  preemptible: false\n"
        "  hold: no\n"
        "  pin: {gpus: [n1/0], nodes: n2}\n"
        "- team: nlp\n"
        "  fraction: 0.125\n"
        "  vram_mib: 2048\n"
        "  cpus: 4\n"
        "  memory_gib: 16\n"
        "  model: [A100-80GB, H100]\n"
        "  topology: leaf\n"
        "  pool: batch\n";
    auto specs = specsFromYaml(text, "jobs.yaml");
    QVERIFY2(specs, specs ? "" : specs.error().str().c_str());
    QCOMPARE(specs->size(), size_t{3});
    const auto& a = (*specs)[0];
    QCOMPARE(a.name(), std::string("train"));
    QCOMPARE(a.tasks(), 2u);
    QCOMPARE(a.per_task().gpus(), 8u);
    QCOMPARE(a.gpu_models(0), std::string("H100"));
    QCOMPARE(a.topology(), tessera::v1::TOPOLOGY_LEVEL_NODE);
    QVERIFY(a.topology_required());
    QCOMPARE(a.estimated_runtime_s(), int64_t{5400});
    QCOMPARE(a.checkpoint_interval_s(), int64_t{600});
    QVERIFY(a.held());
    const auto& b = (*specs)[1];
    QCOMPARE(b.per_task().milli(), 500u);
    QCOMPARE(b.per_task().vram_mib(), int64_t{4096});
    QVERIFY(b.has_preemptible() && !b.preemptible());
    QVERIFY(!b.held());
    QCOMPARE(b.pin_gpus(0), std::string("n1/0"));
    QCOMPARE(b.pin_nodes(0), std::string("n2"));
    const auto& c = (*specs)[2];
    QCOMPARE(c.per_task().milli(), 125u);
    QCOMPARE(c.per_task().vram_mib(), int64_t{2048});
    QCOMPARE(c.memory_mib_per_task(), int64_t{16} * 1024);
    QCOMPARE(c.gpu_models_size(), 2);
    QCOMPARE(c.topology(), tessera::v1::TOPOLOGY_LEVEL_LEAF);
    QCOMPARE(c.pool(), std::string("batch"));
    QVERIFY(specsFromFile(write("jobs.yaml", text)));
  }

  void submitFileErrorsNameTheLine() {
    auto unknown = specsFromYaml("- team: a\n  gpus: 1\n- team: b\n  gpu_count: 2\n", "jobs.yaml");
    QVERIFY(!unknown);
    QVERIFY2(contains(errorOf(unknown.error()), "jobs.yaml:4:") &&
                 contains(errorOf(unknown.error()), "'gpu_count'"),
             errorOf(unknown.error()).c_str());
    auto twoKinds = specsFromYaml("- team: a\n  gpus: 1\n  mig: 1g.10gb\n", "jobs.yaml");
    QVERIFY(!twoKinds);
    QVERIFY2(contains(errorOf(twoKinds.error()), "jobs.yaml:1:") &&
                 contains(errorOf(twoKinds.error()), "only one of gpus:"),
             errorOf(twoKinds.error()).c_str());
    auto badValue = specsFromYaml("- team: a\n  gpus: 1\n  runtime: soon\n", "jobs.yaml");
    QVERIFY(!badValue);
    QVERIFY2(contains(errorOf(badValue.error()), "jobs.yaml:3:"),
             errorOf(badValue.error()).c_str());
    auto noTeam = specsFromYaml("- gpus: 1\n", "jobs.yaml");
    QVERIFY(!noTeam);
    QVERIFY(contains(errorOf(noTeam.error()), "team"));
    QVERIFY(!specsFromYaml("team: a\ngpus: 1\n", "jobs.yaml"));  // a map, not a list
    QVERIFY(!specsFromYaml("[]\n", "jobs.yaml"));
    QVERIFY(!specsFromYaml("- team: a\n  fraction: 2\n", "jobs.yaml"));
    QVERIFY(!specsFromYaml("- team: a\n  gpus: 1\n  hold: true\n  held: true\n", "jobs.yaml"));
    // Through the verb: exit 2, file:line on stderr; an unreadable file is 2 as well.
    const std::string file = write("typo.yaml", "- team: a\n  gpus: 1\n  priorty: high\n");
    const CliResult r = runCli({"ctl", "submit", "--file", file});
    QCOMPARE(r.code, 2);
    QVERIFY2(contains(r.err, "typo.yaml:3:") && contains(r.err, "priorty"),
             qPrintable(describe(r)));
    QCOMPARE(runCli({"ctl", "submit", "--file", path("absent.yaml")}).code, 2);
  }

  void reservationWindowsCountFromTheServersNow() {
    auto w = reservationWindow(1000, "1h", "3h");
    QVERIFY(w);
    QCOMPARE(w->from, Seconds{1000 + 3600});
    QCOMPARE(w->until, Seconds{1000 + 3 * 3600});
    auto now = reservationWindow(50, "0", "90m");
    QVERIFY(now);
    QCOMPARE(now->from, Seconds{50});
    QCOMPARE(now->until, Seconds{50 + 5400});
    auto bad = reservationWindow(0, "0", "tomorrow");
    QVERIFY(!bad);
    QVERIFY(contains(errorOf(bad.error()), "--until"));
    QVERIFY(contains(errorOf(reservationWindow(0, "soon", "1h").error()), "--from"));
    auto backwards = reservationWindow(0, "2h", "1h");
    QVERIFY(!backwards);
    QVERIFY2(contains(errorOf(backwards.error()), "after --from"),
             errorOf(backwards.error()).c_str());
    QVERIFY(!reservationWindow(0, "1h", "1h"));
    const std::string server = "127.0.0.1:" + std::to_string(freePort());
    const CliResult r = runCli({"ctl", "--server", server, "reserve", "mw1", "--node", "n1",
                                "--from", "2h", "--until", "1h"});
    QCOMPARE(r.code, 2);
    QVERIFY2(contains(r.err, "--until"), qPrintable(describe(r)));
  }

  void usageErrorsExit2() {
    const std::string server = "127.0.0.1:" + std::to_string(freePort());
    const std::vector<std::vector<std::string>> cases{
        {"ctl"},
        {"ctl", "--server", server, "nonsense"},
        {"ctl", "--server", server, "get"},
        {"ctl", "--server", server, "get", "abc"},
        {"ctl", "--server", server, "move", "5"},
        {"ctl", "--server", server, "move", "5", "--top", "--bottom"},
        {"ctl", "--server", server, "list", "--state", "sleeping"},
        {"ctl", "--server", server, "-o", "yaml", "whoami"},
        {"ctl", "--server", server, "--timeout", "0", "whoami"},
        {"ctl", "--server", server, "quota", "vision", "H100"},
        {"ctl", "--server", server, "metrics", "x", "--since", "later"},
        {"ctl", "--server", server, "get", "1", "--dry-run"},
        {"ctl", "--server", server, "--token", "a", "--token-file", "/x", "whoami"},
    };
    for (const auto& args : cases) {
      const CliResult r = runCli(args);
      QVERIFY2(r.code == 2, qPrintable(describe(r)));
    }
  }

  // The scrape is read before any connection: a missing, unreadable or empty file is a usage
  // error naming it (exit 2), even with a server that would answer 3.
  void telemetryPushReadsItsFileFirst() {
    const std::string server = "127.0.0.1:" + std::to_string(freePort());
    const std::string absent = path("absent.prom");
    const CliResult missing =
        runCli({"ctl", "--server", server, "telemetry", "push", absent, "--node", "n1"});
    QCOMPARE(missing.code, 2);
    QVERIFY2(contains(missing.err, "tessera ctl: ") && contains(missing.err, absent),
             qPrintable(describe(missing)));
    QVERIFY(missing.out.empty());
    const std::string directory = path("");
    QCOMPARE(runCli({"ctl", "--server", server, "telemetry", "push", directory}).code, 2);
    const std::string empty = write("empty.prom", " \n");
    const CliResult blank = runCli({"ctl", "--server", server, "telemetry", "push", empty});
    QCOMPARE(blank.code, 2);
    QVERIFY2(contains(blank.err, empty) && contains(blank.err, "empty"),
             qPrintable(describe(blank)));
    QCOMPARE(runCli({"ctl", "--server", server, "telemetry"}).code, 2);  // push is required
    QCOMPARE(runCli({"ctl", "--server", server, "telemetry", "pull"}).code, 2);
    QCOMPARE(runCli({"ctl", "--server", server, "telemetry", "push", empty, "--nodes", "x"}).code,
             2);
    // A readable scrape goes out: with nobody listening that is exit 3, options after the call
    // (global ones included) understood.
    const std::string scrape = write("ok.prom", "DCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 50\n");
    const CliResult sent = runCli({"ctl", "telemetry", "push", scrape, "--node", "n1", "--source",
                                   "test", "--server", server, "--timeout", "2", "-o", "json"});
    QVERIFY2(sent.code == 3, qPrintable(describe(sent)));
    QVERIFY2(contains(sent.err, server), qPrintable(describe(sent)));
  }

  void unreachableServerExits3() {
    const std::string server = "127.0.0.1:" + std::to_string(freePort());
    const auto start = std::chrono::steady_clock::now();
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"ctl", "--server", server, "--timeout", "2", "whoami"},
          {"ctl", "list", "-o", "json", "--server", server, "--timeout", "2"},
          {"ctl", "--server", server, "--timeout", "2", "hold", "3", "--dry-run"},
          {"ctl", "--server", server, "--timeout", "2", "health"}}) {
      const CliResult r = runCli(args);
      QVERIFY2(r.code == 3, qPrintable(describe(r)));
      QVERIFY2(contains(r.err, "tessera ctl: ") && contains(r.err, server),
               qPrintable(describe(r)));
      QVERIFY(r.out.empty());
    }
    QVERIFY(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
    // The environment names the server when no flag does; a flag wins over it.
    const std::string other = "127.0.0.1:" + std::to_string(freePort());
    qputenv("TESSERA_SERVER", QByteArray::fromStdString(other));
    const CliResult env = runCli({"ctl", "--timeout", "2", "whoami"});
    QCOMPARE(env.code, 3);
    QVERIFY2(contains(env.err, other), qPrintable(describe(env)));
    const CliResult flag = runCli({"ctl", "--server", server, "--timeout", "2", "whoami"});
    QCOMPARE(flag.code, 3);
    QVERIFY2(contains(flag.err, server) && !contains(flag.err, other), qPrintable(describe(flag)));
    qunsetenv("TESSERA_SERVER");
  }
};

QTEST_GUILESS_MAIN(TstCliCtl)
#include "tst_cli_ctl.moc"
