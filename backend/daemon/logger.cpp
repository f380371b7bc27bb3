#include "daemon/logger.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

#include <nlohmann/json.hpp>

namespace tessera {
namespace {

std::mutex& outputMutex() {
  static std::mutex m;
  return m;
}

const char* levelName(Logger::Level l) {
  switch (l) {
    case Logger::Level::Debug:
      return "debug";
    case Logger::Level::Info:
      return "info";
    case Logger::Level::Warn:
      return "warn";
    case Logger::Level::Error:
      return "error";
  }
  return "info";
}

std::string timestamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()) % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms.count()));
  return out;
}

// logfmt quoting: values with spaces, quotes or '=' are quoted and escaped.
std::string quoted(const std::string& v) {
  if (!v.empty() && v.find_first_of(" \"=\n") == std::string::npos) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

}  // namespace

Logger::Level Logger::levelNamed(const std::string& name) {
  if (name == "debug") return Level::Debug;
  if (name == "warn") return Level::Warn;
  if (name == "error") return Level::Error;
  return Level::Info;
}

void Logger::log(Level level, const std::string& message, const Fields& fields) const {
  if (level < minimum_) return;
  std::string line;
  if (json_) {
    nlohmann::json j{{"ts", timestamp()}, {"level", levelName(level)}, {"msg", message}};
    for (const auto& [k, v] : fields) j[k] = v;
    line = j.dump();
  } else {
    line = "ts=" + timestamp() + " level=" + levelName(level) + " msg=" + quoted(message);
    for (const auto& [k, v] : fields) line += " " + k + "=" + quoted(v);
  }
  std::lock_guard lock(outputMutex());
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

}  // namespace tessera
