#include "daemon/backend_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include "core/strings.h"
#include "daemon/process_metrics.h"

namespace tessera {

const std::vector<double> kCycleBuckets{0.001, 0.002, 0.005, 0.01, 0.02, 0.025, 0.05, 0.075, 0.1,
                                        0.15,  0.25,  0.5,   0.75, 1,    1.5,   2,    2.5,   5};
const std::vector<double> kCallBuckets{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                       0.1,    0.25,  0.5,    1,     2.5,  5,     10};

namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;
using prometheus::Registry;

// A gauge or counter without labels: its family and its one series.
template <typename Builder>
auto& single(Builder&& builder, Registry& r) {
  return builder.Register(r).Add({});
}

}  // namespace

CycleFigures figuresOf(const CycleReport& c, uint64_t* rejected) {
  CycleFigures f;
  // From the index of active jobs: a scrape must not grow with the daemon's history.
  for (const JobRecord* j : c.engine.pending()) {
    if (!isValidUtf8(j->job.team) || !isValidUtf8(j->job.priorityClass)) {
      if (rejected) ++*rejected;
      continue;
    }
    f.queueDepth[{j->job.team, j->job.priorityClass}] += 1;
  }
  for (const JobRecord* j : c.engine.running()) {
    f.jobsRunning += 1;
    f.gpusAllocated += j->gpusHeld(c.engine.state());
  }
  if (c.executor.state != ExecutorState::None)
    f.executor = CycleFigures::Executor{c.executor.name, c.executor.state == ExecutorState::Ready,
                                        static_cast<double>(c.executor.lastSync)};
  f.gpusTotal = static_cast<double>(c.engine.cluster().gpus().size());
  if (c.sample) {
    f.migFragmentation = c.sample->migFragmentation;
    f.fgdFragmentation = c.sample->fgdFragmentation;
  }
  return f;
}

BackendMetrics::BackendMetrics()
    : registry_(std::make_shared<Registry>()),
      gauges_(std::make_shared<CycleGauges>()),
      process_(std::make_shared<ProcessCollector>()),
      backendUp_(single(BuildGauge()
                            .Name("tessera_backend_up")
                            .Help("1 while the backend takes work; 0 once a failed write could "
                                  "not be rolled back (tessera ctl health says why; restart "
                                  "tesserad)"),
                        *registry_)),
      cycleSeconds_(BuildHistogram()
                        .Name("tessera_cycle_seconds")
                        .Help("Scheduling cycle duration")
                        .Register(*registry_)
                        .Add({}, kCycleBuckets)),
      placements_(single(
          BuildCounter().Name("tessera_placements_total").Help("Jobs started by the scheduler"),
          *registry_)),
      backfilled_(
          single(BuildCounter().Name("tessera_backfilled_total").Help("Jobs started by backfill"),
                 *registry_)),
      preemptions_(single(BuildCounter().Name("tessera_preemptions_total").Help("Jobs preempted"),
                          *registry_)),
      rejected_(single(BuildCounter()
                           .Name("tessera_metrics_rejected_total")
                           .Help("Metric updates tesserad ignored as invalid (a team or class "
                                 "name that is not UTF-8)"),
                       *registry_)),
      startSeconds_(BuildHistogram()
                        .Name("tessera_executor_start_seconds")
                        .Help("From the engine's placement to the job seen RUNNING in the "
                              "cluster (an upper bound: the executor sees it at its next poll)")
                        .Register(*registry_)),
      callSeconds_(BuildHistogram()
                       .Name("tessera_rpc_duration_seconds")
                       .Help("gRPC calls from arrival to the status sent, by method (watch "
                             "streams excluded)")
                       .Register(*registry_)) {}

BackendMetrics::~BackendMetrics() = default;

void BackendMetrics::recordCycle(const CycleReport& c) {
  uint64_t rejected = 0;
  gauges_->publish(figuresOf(c, &rejected));
  if (rejected) rejected_.Increment(static_cast<double>(rejected));
  cycleSeconds_.Observe(c.stats.cycleMs / 1000.0);
  placements_.Increment(c.stats.started);
  backfilled_.Increment(c.stats.backfilled);
  preemptions_.Increment(c.stats.preempted);
}

void BackendMetrics::recordStartLatency(const std::string& executor, double seconds) {
  startSeconds_
      .Add({{"executor", executor}},
           prometheus::Histogram::BucketBoundaries{0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 30})
      .Observe(seconds);
}

void BackendMetrics::recordCall(const std::string& method, double seconds) {
  // Add() returns the existing series for known labels (the method names are a fixed set).
  callSeconds_.Add({{"method", method}}, kCallBuckets).Observe(seconds);
}

void BackendMetrics::setBackendUp(bool up) {
  backendUp_.Set(up ? 1 : 0);
}

std::vector<std::weak_ptr<prometheus::Collectable>> BackendMetrics::collectables() const {
  return {registry_, gauges_, process_};
}

std::string BackendMetrics::render() const {
  std::vector<prometheus::MetricFamily> families;
  for (const auto& weak : collectables())
    if (const auto c = weak.lock())
      for (auto& f : c->Collect()) families.push_back(std::move(f));
  return prometheus::TextSerializer().Serialize(families);
}

CancelHealthExport exportHealth(BackendMetrics& m, Backend& backend, const Logger& log) {
  const auto publish = [&m, &log](const BackendHealth& h) {
    m.setBackendUp(h.serving);
    if (!h.serving) log.error("not serving: " + h.reason);
  };
  publish(backend.health());
  return backend.watchHealth(publish);
}

}  // namespace tessera
