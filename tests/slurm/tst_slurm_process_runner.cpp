// ProcessRunner: no shell between us and the program, timeouts end the whole process group,
// stdin reaches the child, at most N children at once.
#include <QtTest>

#include <signal.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "core/strings.h"
#include "slurm/process_runner.h"

using namespace tessera;
using namespace tessera::slurm;
using namespace std::chrono_literals;

namespace {

CommandRequest command(std::vector<std::string> argv) {
  CommandRequest r;
  r.argv = std::move(argv);
  r.timeout = 10s;
  return r;
}

bool processAlive(int pid) {
  if (::kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pidField, comm, state;
  stat >> pidField >> comm >> state;
  return state != "Z";
}

}  // namespace

class TestProcessRunner : public QObject {
  Q_OBJECT

 private slots:
  void capturesOutputAndExitCode() {
    ProcessRunner runner;
    auto r = runner.run(command({"sh", "-c", "echo out; echo err >&2; exit 3"}));
    QVERIFY(r.ok());
    QCOMPARE(r->exitCode, 3);
    QCOMPARE(r->out, std::string("out\n"));
    QCOMPARE(r->err, std::string("err\n"));
    QVERIFY(!r->ok() && !r->timedOut);
    QCOMPARE(r->describe(), std::string("exit 3"));
  }

  void argumentsArePassedLiterally() {
    ProcessRunner runner;
    const std::vector<std::string> tricky{"a b",
                                          "it's \"quoted\"",
                                          "x; rm -rf /tmp/nope",
                                          "$(touch /tmp/tessera-pwned)",
                                          "`id`",
                                          "*",
                                          "",
                                          "$HOME"};
    std::vector<std::string> argv{"printf", "%s\\n"};
    argv.insert(argv.end(), tricky.begin(), tricky.end());
    auto r = runner.run(command(argv));
    QVERIFY(r.ok() && r->ok());
    QCOMPARE(r->out, join(tricky, "\n") + "\n");
    QVERIFY(!std::filesystem::exists("/tmp/tessera-pwned"));
  }

  void stdinReachesTheChild() {
    ProcessRunner runner;
    auto req = command({"cat"});
    std::string big(1 << 20, 'x');  // more than a pipe buffer: needs the poll loop
    big += "\n#!/bin/bash\necho $((1+1))\n";
    req.stdinData = big;
    auto r = runner.run(req);
    QVERIFY(r.ok() && r->ok());
    QCOMPARE(r->out.size(), big.size());
    QVERIFY(r->out == big);
    auto noInput = runner.run(command({"cat"}));  // stdin is /dev/null: ends at once
    QVERIFY(noInput.ok() && noInput->ok() && noInput->out.empty());
  }

  void childThatIgnoresItsInputDoesNotKillUs() {
    ProcessRunner runner;
    auto req = command({"true"});
    req.stdinData = std::string(4 << 20, 'y');  // EPIPE, and a SIGPIPE that must not end us
    auto r = runner.run(req);
    QVERIFY(r.ok());
    QCOMPARE(r->exitCode, 0);
  }

  void timeoutKillsTheProcessGroup() {
    ProcessRunner runner;
    // The shell starts a grandchild and prints its pid; both must be gone after the timeout.
    auto req = command({"sh", "-c", "sleep 30 & echo $!; wait"});
    req.timeout = 300ms;
    auto r = runner.run(req);
    QVERIFY(r.ok());
    QVERIFY(r->timedOut);
    QVERIFY(!r->ok());
    QCOMPARE(r->signal, SIGTERM);
    const int grandchild = parseInt(trim(r->out)).value_or(0);
    QVERIFY(grandchild > 0);
    QTRY_VERIFY_WITH_TIMEOUT(!processAlive(grandchild), 5000);
    QVERIFY(r->describe().find("timed out") != std::string::npos);
  }

  void sigtermIgnoredMeansSigkill() {
    ProcessRunner runner;
    auto req = command({"sh", "-c", "trap '' TERM; echo ready; while :; do sleep 0.05; done"});
    req.timeout = 200ms;
    req.killGrace = 200ms;
    auto r = runner.run(req);
    QVERIFY(r.ok());
    QVERIFY(r->timedOut);
    QCOMPARE(r->signal, SIGKILL);
    QCOMPARE(r->out, std::string("ready\n"));
  }

  void missingProgramIsAnError() {
    ProcessRunner runner;
    auto r = runner.run(command({"tessera-no-such-program"}));
    QVERIFY(!r.ok());
    QVERIFY(r.error().message.find("tessera-no-such-program") != std::string::npos);
    QVERIFY(!runner.run(command({})).ok());
  }

  void environmentOverrides() {
    ProcessRunner runner;
    auto req = command({"sh", "-c", "echo \"$SLURM_CONF|$PATH\""});
    req.environment["SLURM_CONF"] = "/x/slurm.conf";
    auto r = runner.run(req);
    QVERIFY(r.ok() && r->ok());
    QVERIFY(r->out.starts_with("/x/slurm.conf|"));
    QVERIFY(r->out.size() > std::string("/x/slurm.conf|\n").size());  // PATH inherited
  }

  void outputLimit() {
    ProcessRunner runner;
    auto req = command({"sh", "-c", "while :; do echo yyyyyyyyyyyyyyyyyyyyyyyy; done"});
    req.outputLimit = 100000;
    auto r = runner.run(req);
    QVERIFY(r.ok());
    QVERIFY(r->outputLimitHit && !r->ok());
  }

  void concurrencyBoundHolds() {
    ProcessRunner runner(2);
    const auto dir = std::filesystem::path(QDir::tempPath().toStdString()) /
                     ("tessera-runner-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    // Each child holds a file while it runs and records how many such files it saw.
    const std::string script =
        "touch \"$1/$$\"; ls \"$1\" | grep -vc log >> \"$1/log\"; sleep 0.2; rm \"$1/$$\"";
    std::vector<std::thread> threads;
    for (int i = 0; i < 6; ++i)
      threads.emplace_back([&] {
        auto r = runner.run(command({"sh", "-c", script, "sh", dir.string()}));
        QVERIFY(r.ok() && r->ok());
      });
    for (auto& t : threads) t.join();
    std::ifstream log(dir / "log");
    int seen = 0;
    int most = 0;
    int lines = 0;
    while (log >> seen) {
      most = std::max(most, seen);
      ++lines;
    }
    std::filesystem::remove_all(dir);
    QCOMPARE(lines, 6);
    QVERIFY2(most <= 2, qPrintable(QString("%1 children at once").arg(most)));
    QCOMPARE(runner.peakConcurrency(), 2);
  }
};

QTEST_GUILESS_MAIN(TestProcessRunner)
#include "tst_slurm_process_runner.moc"
