#pragma once
// The standard process_* families every Prometheus client library exports (prometheus-cpp does
// not): CPU seconds, resident and virtual memory, start time, open and maximum file descriptors,
// read from /proc/self at each scrape. Dashboards and alerts written for any exporter
// (process_resident_memory_bytes growth, fds near the limit) then work on tesserad as they are.
#include <prometheus/collectable.h>

#include <optional>
#include <string_view>
#include <vector>

namespace tessera {

// The fields of /proc/self/stat the families need, converted to seconds and bytes.
struct ProcStat {
  double cpuSeconds = 0;    // utime + stime
  double startSeconds = 0;  // since boot
  double virtualBytes = 0;
  double residentBytes = 0;
};

// `stat` is the text of /proc/<pid>/stat; nullopt when it is not one. The command name (field 2)
// may hold spaces and parentheses, so fields are counted from the last ')'.
std::optional<ProcStat> parseProcStat(std::string_view stat, double ticksPerSecond,
                                      double pageBytes);
// The boot time ("btime" line) of /proc/stat's text, in unix seconds.
std::optional<double> parseBootTime(std::string_view procStat);
// The soft "Max open files" limit of /proc/<pid>/limits' text ("unlimited": nullopt).
std::optional<double> parseMaxOpenFiles(std::string_view limits);

class ProcessCollector : public prometheus::Collectable {
 public:
  // A family whose source cannot be read is left out of that scrape, never served as 0.
  [[nodiscard]] std::vector<prometheus::MetricFamily> Collect() const override;
};

}  // namespace tessera
