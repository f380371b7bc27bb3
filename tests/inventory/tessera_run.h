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
