#pragma once
// Structured logs on stderr, one line per record: logfmt-style text for people, JSON lines for
// log collectors (journald passes either through). Thread-safe.
#include <string>
#include <utility>
#include <vector>

namespace tessera {

class Logger {
 public:
  enum class Level { Debug, Info, Warn, Error };
  Logger(bool json, Level minimum) : json_(json), minimum_(minimum) {}
  static Level levelNamed(const std::string& name);
  using Fields = std::vector<std::pair<std::string, std::string>>;
  void log(Level level, const std::string& message, const Fields& fields = {}) const;
  void info(const std::string& m, const Fields& f = {}) const { log(Level::Info, m, f); }
  void warn(const std::string& m, const Fields& f = {}) const { log(Level::Warn, m, f); }
  void error(const std::string& m, const Fields& f = {}) const { log(Level::Error, m, f); }

 private:
  bool json_;
  Level minimum_;
};

}  // namespace tessera
