#include "daemon/process_metrics.h"

#include <unistd.h>

#include <cctype>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "daemon/metric_families.h"

namespace tessera {

namespace {

using prometheus::MetricFamily;
using prometheus::MetricType;

std::optional<double> number(std::string_view text) {
  double v = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

// Whitespace-separated fields of `text`.
std::vector<std::string_view> fields(std::string_view text) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    const size_t start = i;
    while (i < text.size() && !std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

std::string readAll(const char* path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

MetricFamily one(const char* name, const char* help, MetricType type, double value) {
  MetricFamily f = emptyFamily(name, help, type);
  addSeries(f, value);
  return f;
}

std::optional<double> openFds() {
  std::error_code ec;
  double n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec))
    ++n;
  if (ec) return std::nullopt;
  return n - 1;  // less the descriptor the listing itself holds open
}

}  // namespace

std::optional<ProcStat> parseProcStat(std::string_view stat, double ticksPerSecond,
                                      double pageBytes) {
  const size_t close = stat.rfind(')');
  if (close == std::string_view::npos || ticksPerSecond <= 0) return std::nullopt;
  // After "pid (comm)": field 3 (state) is index 0, so field N is index N - 3.
  const std::vector<std::string_view> f = fields(stat.substr(close + 1));
  if (f.size() < 22) return std::nullopt;
  const auto utime = number(f[11]), stime = number(f[12]), start = number(f[19]),
             vsize = number(f[20]), rss = number(f[21]);
  if (!utime || !stime || !start || !vsize || !rss) return std::nullopt;
  return ProcStat{(*utime + *stime) / ticksPerSecond, *start / ticksPerSecond, *vsize,
                  *rss * pageBytes};
}

std::optional<double> parseBootTime(std::string_view procStat) {
  std::istringstream in{std::string(procStat)};
  for (std::string line; std::getline(in, line);) {
    const auto f = fields(line);
    if (f.size() == 2 && f[0] == "btime") return number(f[1]);
  }
  return std::nullopt;
}

std::optional<double> parseMaxOpenFiles(std::string_view limits) {
  std::istringstream in{std::string(limits)};
  for (std::string line; std::getline(in, line);) {
    if (!line.starts_with("Max open files")) continue;
    const auto f = fields(std::string_view(line).substr(14));
    return f.empty() ? std::nullopt : number(f[0]);
  }
  return std::nullopt;
}

std::vector<MetricFamily> ProcessCollector::Collect() const {
  std::vector<MetricFamily> out;
  const auto stat =
      parseProcStat(readAll("/proc/self/stat"), static_cast<double>(::sysconf(_SC_CLK_TCK)),
                    static_cast<double>(::sysconf(_SC_PAGESIZE)));
  const auto boot = parseBootTime(readAll("/proc/stat"));
  if (stat) {
    out.push_back(one("process_cpu_seconds_total",
                      "Total user and system CPU time spent in seconds.", MetricType::Counter,
                      stat->cpuSeconds));
    out.push_back(one("process_resident_memory_bytes", "Resident memory size in bytes.",
                      MetricType::Gauge, stat->residentBytes));
    out.push_back(one("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                      MetricType::Gauge, stat->virtualBytes));
    if (boot)
      out.push_back(one("process_start_time_seconds",
                        "Start time of the process since unix epoch in seconds.", MetricType::Gauge,
                        *boot + stat->startSeconds));
  }
  if (const auto fds = openFds())
    out.push_back(
        one("process_open_fds", "Number of open file descriptors.", MetricType::Gauge, *fds));
  if (const auto max = parseMaxOpenFiles(readAll("/proc/self/limits")))
    out.push_back(one("process_max_fds", "Maximum number of open file descriptors.",
                      MetricType::Gauge, *max));
  return out;
}

}  // namespace tessera
