#pragma once
// The `tessera` binary run as a child process by the node-agent tests, and the fake NVML's
// recorded H100 (tests/inventory/fake_nvml.cpp reads the files named in TESSERA_FAKE_NVML).
#include <QProcess>
#include <QtTest>

#include <string>

namespace tessera::test {

inline const std::string kFakeNvmlH100 =
    std::string(TESSERA_TEST_DATA) +
    "/real-gpu/h100-sxm5-80gb/nvml-probe.txt:" + TESSERA_TEST_DATA + "/inventory/h100-pci.txt";

struct Run {
  int code = -1;
  QByteArray out, err;
};

// `tessera agent` as a child process, sampling every 0.2 s and retrying after at most 0.5 s so the
// tests run fast, its stderr kept; stopped with SIGTERM to its own pid, killed if still running
// when the test ends.
class AgentProcess {
 public:
  AgentProcess(const std::string& server, const QString& tokenFile, const QString& node,
               const QStringList& extra) {
    process_.start(TESSERA_BIN, QStringList{"agent", "--server", QString::fromStdString(server),
                                            "--token-file", tokenFile, "--node", node, "--interval",
                                            "0.2", "--max-backoff", "0.5"}
                                    << extra);
    if (!process_.waitForStarted(5000)) qFatal("tessera agent did not start");
  }
  AgentProcess(const AgentProcess&) = delete;
  AgentProcess& operator=(const AgentProcess&) = delete;
  QString log() {
    log_ += QString::fromUtf8(process_.readAllStandardError());
    return log_;
  }
  // SIGTERM; the exit code when it stopped normally, else -1.
  int terminate() {
    process_.terminate();
    if (!process_.waitForFinished(10000) || process_.exitStatus() != QProcess::NormalExit)
      return -1;
    log();
    return process_.exitCode();
  }
  ~AgentProcess() {
    if (process_.state() != QProcess::NotRunning) {
      process_.kill();
      process_.waitForFinished(5000);
    }
  }

 private:
  QProcess process_;
  QString log_;
};

// `tessera args...` with `input` on stdin, to the end (a minute at most).
inline Run runTessera(const QStringList& args, const QByteArray& input = {}) {
  QProcess p;
  p.start(TESSERA_BIN, args);
  if (!input.isEmpty()) p.write(input);
  p.closeWriteChannel();
  if (!p.waitForFinished(60000)) qFatal("tessera %s did not finish", qPrintable(args.join(' ')));
  return {p.exitCode(), p.readAllStandardOutput(), p.readAllStandardError()};
}

}  // namespace tessera::test
