#pragma once
// What tesserad exports about its backend on /metrics, on prometheus-cpp: the counters and
// histograms (cycle time, RPC latency per method, executor start latency) live in a
// prometheus::Registry; the gauges each cycle recomputes are served from a snapshot (CycleGauges);
// the process_* families come from /proc (ProcessCollector). Updates come from the engine thread
// (recordCycle), the executor (recordStartLatency), gRPC threads (recordCall) and the health
// watch (setBackendUp); scrapes from the exporter's threads. prometheus-cpp's metrics are
// thread-safe, and nothing here touches engine state outside recordCycle.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "daemon/cycle_gauges.h"
#include "daemon/logger.h"
#include "service/backend.h"

namespace prometheus {
class Collectable;
class Counter;
class Gauge;
class Histogram;
class Registry;
template <typename T>
class Family;
}  // namespace prometheus

namespace tessera {

// Bucket upper bounds (seconds). The cycle's cover 1 ms to 2 s finely enough for a p99 alert and
// keep every bound the family had before (2.5 and 5 included), so existing queries still match.
extern const std::vector<double> kCycleBuckets;
extern const std::vector<double> kCallBuckets;

// The per-cycle gauges' values from a cycle, computed on the engine thread. Pending jobs whose
// team or class is not valid UTF-8 are left out and counted in `rejected`.
CycleFigures figuresOf(const CycleReport& c, uint64_t* rejected = nullptr);

class BackendMetrics {
 public:
  BackendMetrics();
  ~BackendMetrics();
  BackendMetrics(const BackendMetrics&) = delete;
  BackendMetrics& operator=(const BackendMetrics&) = delete;

  // After each cycle (engine thread): queue depth, cycle time, placements, allocation.
  void recordCycle(const CycleReport& c);
  // From the engine's placement to the job seen running in the cluster.
  void recordStartLatency(const std::string& executor, double seconds);
  // One finished gRPC call: `method` is its short name ("Submit").
  void recordCall(const std::string& method, double seconds);
  void setBackendUp(bool up);

  // What the exporter serves, in order.
  [[nodiscard]] std::vector<std::weak_ptr<prometheus::Collectable>> collectables() const;
  // The text a scrape would get (tests and benchmarks; the exporter renders its own).
  [[nodiscard]] std::string render() const;

 private:
  std::shared_ptr<prometheus::Registry> registry_;
  std::shared_ptr<CycleGauges> gauges_;
  std::shared_ptr<prometheus::Collectable> process_;
  prometheus::Gauge& backendUp_;
  prometheus::Histogram& cycleSeconds_;
  prometheus::Counter& placements_;
  prometheus::Counter& backfilled_;
  prometheus::Counter& preemptions_;
  prometheus::Counter& rejected_;
  prometheus::Family<prometheus::Histogram>& startSeconds_;
  prometheus::Family<prometheus::Histogram>& callSeconds_;
};

using CancelHealthExport = std::function<void()>;
// Keeps tessera_backend_up at 1 while `backend` serves and sets it to 0 (logging the reason) when
// it stops; call the result before `m`, `backend` or `log` go away.
[[nodiscard]] CancelHealthExport exportHealth(BackendMetrics& m, Backend& backend,
                                              const Logger& log);

}  // namespace tessera
