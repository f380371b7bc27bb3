#include "daemon/backend_metrics.h"

#include <map>

namespace tessera {

void declareMetrics(MetricsRegistry& r) {
  r.declareGauge("tessera_backend_up",
                 "1 while the backend takes work; 0 once a failed write could not be rolled back "
                 "(tessera ctl health says why; restart tesserad)");
  r.declareGauge("tessera_queue_depth", "Pending jobs by team and priority class");
  r.declareHistogram("tessera_cycle_seconds", "Scheduling cycle duration",
                     {0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5});
  r.declareCounter("tessera_placements_total", "Jobs started by the scheduler");
  r.declareCounter("tessera_backfilled_total", "Jobs started by backfill");
  r.declareCounter("tessera_preemptions_total", "Jobs preempted");
  r.declareGauge("tessera_jobs_running", "Running jobs");
  r.declareGauge("tessera_executor_up",
                 "1 while the executor (Slurm) answers, 0 while it is unavailable; absent "
                 "without one");
  r.declareGauge("tessera_executor_last_sync_timestamp_seconds",
                 "When the executor last saw the whole cluster (unix seconds)");
  r.declareHistogram("tessera_executor_start_seconds",
                     "From the engine's placement to the job seen RUNNING in the cluster (an upper "
                     "bound: the executor sees it at its next poll)",
                     {0.25, 0.5, 1, 1.5, 2, 3, 5, 10, 30});
  r.declareGauge("tessera_gpus_total", "GPUs in the cluster");
  r.declareGauge("tessera_gpus_allocated", "GPU equivalents held by jobs");
  r.declareGauge("tessera_allocation_ratio", "Allocated GPUs / GPUs");
  r.declareGauge("tessera_fragmentation_mig", "Mean MIG fragmentation score of MIG GPUs (0..1)");
  r.declareGauge("tessera_fragmentation_fgd_gpus",
                 "GPUs unusable by the current request mix (FGD's measure)");
}

void updateMetrics(MetricsRegistry& r, const CycleReport& c) {
  std::map<std::pair<std::string, std::string>, double> depth;
  double allocated = 0;
  int running = 0;
  // From the index of active jobs: a scrape must not grow with the daemon's history.
  for (const JobRecord* j : c.engine.pending()) depth[{j->job.team, j->job.priorityClass}] += 1;
  for (const JobRecord* j : c.engine.running()) {
    ++running;
    allocated += j->gpusHeld(c.engine.state());
  }
  std::vector<std::pair<Labels, double>> series;
  for (const auto& [key, n] : depth)
    series.push_back({{{"team", key.first}, {"class", key.second}}, n});
  r.replaceGauge("tessera_queue_depth", series);
  r.observe("tessera_cycle_seconds", c.stats.cycleMs / 1000.0);
  r.add("tessera_placements_total", c.stats.started);
  r.add("tessera_backfilled_total", c.stats.backfilled);
  r.add("tessera_preemptions_total", c.stats.preempted);
  r.set("tessera_jobs_running", running);
  if (c.executor.state != ExecutorState::None) {
    const Labels by{{"executor", c.executor.name}};
    r.replaceGauge("tessera_executor_up",
                   {{by, c.executor.state == ExecutorState::Ready ? 1.0 : 0.0}});
    r.replaceGauge("tessera_executor_last_sync_timestamp_seconds",
                   {{by, static_cast<double>(c.executor.lastSync)}});
  }
  const double total = static_cast<double>(c.engine.cluster().gpus().size());
  r.set("tessera_gpus_total", total);
  r.set("tessera_gpus_allocated", allocated);
  r.set("tessera_allocation_ratio", total > 0 ? allocated / total : 0);
  if (c.sample) {
    r.set("tessera_fragmentation_mig", c.sample->migFragmentation);
    r.set("tessera_fragmentation_fgd_gpus", c.sample->fgdFragmentation);
  }
}

CancelHealthExport exportHealth(MetricsRegistry& r, Backend& backend, const Logger& log) {
  const auto publish = [&r, &log](const BackendHealth& h) {
    r.set("tessera_backend_up", h.serving ? 1 : 0);
    if (!h.serving) log.error("not serving: " + h.reason);
  };
  publish(backend.health());
  return backend.watchHealth(publish);
}

}  // namespace tessera
