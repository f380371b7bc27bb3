#pragma once
// Running `tessera` verbs in-process for tests: argv from strings, output captured.
#include <QFile>
#include <QString>

#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"

namespace tessera::test {

struct CliResult {
  int code = -1;
  std::string out;
  std::string err;
};

inline CliResult runCli(const std::vector<std::string>& args) {
  std::vector<std::string> storage{"tessera"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<const char*> argv;
  for (const auto& a : storage) argv.push_back(a.c_str());
  std::ostringstream out;
  std::ostringstream err;
  CliResult r;
  r.code = cli::run(static_cast<int>(argv.size()), argv.data(), out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

inline bool contains(const std::string& hay, const std::string& needle) {
  return hay.find(needle) != std::string::npos;
}

inline QString describe(const CliResult& r) {
  return QStringLiteral("exit %1\n--- stdout ---\n%2\n--- stderr ---\n%3")
      .arg(r.code)
      .arg(QString::fromStdString(r.out), QString::fromStdString(r.err));
}

inline std::string readFile(const QString& path) {
  QFile f(path);
  if (!f.open(QIODevice::ReadOnly)) return {};
  const QByteArray bytes = f.readAll();
  return std::string(bytes.constData(), static_cast<size_t>(bytes.size()));
}

inline bool writeFile(const QString& path, const std::string& text) {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return false;
  return f.write(text.data(), static_cast<qint64>(text.size())) == static_cast<qint64>(text.size());
}

}  // namespace tessera::test
