#include "daemon/cycle_gauges.h"

#include "daemon/metric_families.h"

namespace tessera {

namespace {

using prometheus::MetricFamily;
using prometheus::MetricType;

MetricFamily gauge(const char* name, const char* help) {
  return emptyFamily(name, help, MetricType::Gauge);
}

// The families in the order they are served; series only when `f` says something.
std::vector<MetricFamily> familiesOf(const CycleFigures* f) {
  MetricFamily depth = gauge("tessera_queue_depth", "Pending jobs by team and priority class");
  MetricFamily running = gauge("tessera_jobs_running", "Running jobs");
  MetricFamily up = gauge("tessera_executor_up",
                          "1 while the executor (Slurm) answers, 0 while it is unavailable; "
                          "absent without one");
  MetricFamily sync = gauge("tessera_executor_last_sync_timestamp_seconds",
                            "When the executor last saw the whole cluster (unix seconds)");
  MetricFamily total = gauge("tessera_gpus_total", "GPUs in the cluster");
  MetricFamily allocated = gauge("tessera_gpus_allocated", "GPU equivalents held by jobs");
  MetricFamily ratio = gauge("tessera_allocation_ratio", "Allocated GPUs / GPUs");
  MetricFamily mig =
      gauge("tessera_fragmentation_mig", "Mean MIG fragmentation score of MIG GPUs (0..1)");
  MetricFamily fgd = gauge("tessera_fragmentation_fgd_gpus",
                           "GPUs unusable by the current request mix (FGD's measure)");
  if (f) {
    for (const auto& [key, n] : f->queueDepth)
      addSeries(depth, n, {{"class", key.second}, {"team", key.first}});  // sorted, as before
    addSeries(running, f->jobsRunning);
    if (f->executor) {
      addSeries(up, f->executor->up ? 1 : 0, {{"executor", f->executor->name}});
      addSeries(sync, f->executor->lastSyncSeconds, {{"executor", f->executor->name}});
    }
    addSeries(total, f->gpusTotal);
    addSeries(allocated, f->gpusAllocated);
    addSeries(ratio, f->gpusTotal > 0 ? f->gpusAllocated / f->gpusTotal : 0);
    if (f->migFragmentation) addSeries(mig, *f->migFragmentation);
    if (f->fgdFragmentation) addSeries(fgd, *f->fgdFragmentation);
  }
  return {std::move(depth), std::move(running), std::move(up),
          std::move(sync),  std::move(total),   std::move(allocated),
          std::move(ratio), std::move(mig),     std::move(fgd)};
}

}  // namespace

void CycleGauges::publish(CycleFigures figures) {
  auto next = std::make_shared<const CycleFigures>(std::move(figures));
  std::lock_guard lock(mutex_);
  latest_ = std::move(next);
}

std::vector<MetricFamily> CycleGauges::Collect() const {
  std::shared_ptr<const CycleFigures> f;
  {
    std::lock_guard lock(mutex_);
    f = latest_;
  }
  return familiesOf(f.get());
}

}  // namespace tessera
