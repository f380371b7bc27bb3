#pragma once
// The gauges each scheduling cycle recomputes (queue depth by team and class, running jobs, GPUs,
// allocation, fragmentation, the executor's state), served from the last published snapshot.
//
// Threads: publish() runs on the engine thread after a cycle; Collect() runs on the exporter's
// (civetweb) threads at each scrape. They share only the snapshot, swapped under a mutex, so a
// scrape never touches engine state and never waits for a cycle.
#include <prometheus/collectable.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tessera {

// Plain values of one cycle (what backend_metrics computes from a CycleReport).
struct CycleFigures {
  struct Executor {
    std::string name;  // "slurm"
    bool up = false;
    double lastSyncSeconds = 0;  // unix seconds; 0 = never
  };
  std::map<std::pair<std::string, std::string>, double> queueDepth;  // (team, class) -> pending
  double jobsRunning = 0;
  double gpusTotal = 0;
  double gpusAllocated = 0;
  std::optional<Executor> executor;        // absent without one
  std::optional<double> migFragmentation;  // absent before the first metric sample
  std::optional<double> fgdFragmentation;
};

class CycleGauges : public prometheus::Collectable {
 public:
  void publish(CycleFigures figures);
  // Before the first publish the families are listed without series.
  [[nodiscard]] std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  mutable std::mutex mutex_;
  std::shared_ptr<const CycleFigures> latest_;  // copied out under the lock, read without it
};

}  // namespace tessera
