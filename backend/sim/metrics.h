#pragma once
// What a simulation measured: samples over time (allocation, utilization, fragmentation,
// stranded GPUs by cause, queue length, cycle time) and a summary (queue wait percentiles by team
// and class, job completion time and slowdown, preemptions and GPU-hours lost, fairness, engine
// cycle time), written as JSON and CSV. Definitions: docs/simulator.md#metrics.
#include <array>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "core/ids.h"
#include "workload/job.h"

namespace tessera {

class Engine;
struct CycleStats;
struct GpuTelemetry;
struct JobRecord;

// Why free GPU capacity could not be used while GPU work was waiting.
enum class StrandCause : uint8_t {
  Unavailable,    // node down, draining, or being repaired or reconfigured
  HostResources,  // free GPUs on nodes without the CPUs or memory pending work needs
  MigLayout,      // free MIG slices no pending profile fits
  Fragmentation,  // leftover shares of time-sliced GPUs smaller than any pending share
  Quota,          // free GPUs while every pending GPU job is held back by its quota
  GangTopology,   // free GPUs, but not enough together where a pending gang may go
};
inline constexpr size_t kStrandCauses = 6;
const char* strandCauseName(StrandCause c);
// The metric series of stranded GPUs of one cause: gpus_stranded{cause="mig-layout"}.
std::string strandedSeriesName(StrandCause c);

struct MetricSample {
  Seconds time = 0;
  double capacity = 0;          // GPUs on nodes that are up
  double allocated = 0;         // GPU equivalents held by jobs
  double busy = 0;              // allocated x GPU utilization
  double effective = 0;         // allocated x SM active
  double tensor = 0;            // allocated x tensor pipes active
  double fgdFragmentation = 0;  // GPUs: FGD's measure against the current request mix
  double migFragmentation = 0;  // mean MIG fragmentation score of MIG GPUs (0..1)
  std::array<double, kStrandCauses> stranded{};  // GPU equivalents by cause
  int pending = 0;
  int running = 0;
  double lastCycleMs = 0;
};

// One job's life in the simulation.
struct JobOutcome {
  JobId id = kNoJob;
  std::string team;
  std::string priorityClass;
  WorkloadClass workloadClass = WorkloadClass::Batch;
  double gpus = 0;  // GPU equivalents it asks for
  Seconds submit = 0;
  Seconds firstStart = -1;  // -1: never started
  Seconds end = -1;         // -1: not finished when the simulation stopped
  Seconds runtime = 0;      // its real runtime from the trace
  JobState state = JobState::Pending;
  int preemptions = 0;  // by the scheduling policy or an operator
  double gpuHoursLost = 0;
  int interruptions = 0;  // requeued by node failures, GPU faults or MIG reconfigurations
  double gpuHoursLostToInterruptions = 0;
  double gpuHoursUsed = 0;
};

struct Percentiles {
  double p50 = 0, p95 = 0, p99 = 0, max = 0, mean = 0;
  size_t count = 0;
};
Percentiles percentiles(std::vector<double> values);

struct TeamFairness {
  double gpuHours = 0;
  double share = 0;     // of all GPU-hours used
  double deserved = 0;  // by weight among the teams that had work
};

struct SimSummary {
  Seconds start = 0, end = 0;
  size_t jobs = 0, completed = 0, failed = 0, unfinished = 0, neverStarted = 0;
  size_t refused = 0;  // trace jobs the engine refused at submit (listed in the simulator's log)
  // Time-weighted means over the samples, as fractions of capacity.
  double allocation = 0, busy = 0, effective = 0;
  double fgdFragmentation = 0, migFragmentation = 0;
  std::array<double, kStrandCauses> stranded{};  // mean GPU equivalents by cause
  Percentiles wait;                              // seconds, started jobs
  std::map<std::string, Percentiles> waitByTeam, waitByClass;
  Percentiles jct;       // submit to end, completed jobs
  Percentiles slowdown;  // bounded slowdown: (wait + run) / max(run, 10 s)
  int preemptions = 0;
  double gpuHoursLost = 0, gpuHoursUsed = 0;
  int interruptions = 0;
  double gpuHoursLostToInterruptions = 0;
  std::map<std::string, TeamFairness> fairness;
  Percentiles cycleMs;
  size_t cycles = 0;
  double wallSeconds = 0;  // filled by the caller that timed the run
  [[nodiscard]] double speedup() const {
    return wallSeconds > 0 ? double(end - start) / wallSeconds : 0;
  }
};

class MetricsRecorder {
 public:
  // Takes a sample of the engine's state; `telemetry` is every GPU's synthetic telemetry.
  // `pending` and `running` are the engine's active jobs (the simulator keeps them indexed).
  void sample(const Engine& engine, const std::vector<GpuTelemetry>& telemetry,
              const std::vector<const JobRecord*>& pending,
              const std::vector<const JobRecord*>& running);
  void recordCycle(const CycleStats& c);
  [[nodiscard]] const std::vector<MetricSample>& samples() const { return samples_; }
  [[nodiscard]] const std::vector<double>& cycleMs() const { return cycleMs_; }
  // Where the engine's time went, summed over cycles (ms): ordering, preemption, backfill.
  struct Phases {
    double order = 0, preempt = 0, backfill = 0;
  };
  [[nodiscard]] const Phases& phases() const { return phases_; }

 private:
  std::vector<MetricSample> samples_;
  std::vector<double> cycleMs_;
  Phases phases_;
};

// Summary from the samples and the job outcomes (teams weighted by `teamWeights`; teams not
// listed weigh 1).
SimSummary summarize(const MetricsRecorder& m, const std::vector<JobOutcome>& jobs,
                     const std::map<std::string, double>& teamWeights, Seconds start, Seconds end);

void writeSummaryJson(std::ostream& out, const SimSummary& s);
std::string summaryText(const SimSummary& s);
// CSV with a header row; column names are documented in docs/simulator.md.
void writeSamplesCsv(std::ostream& out, const std::vector<MetricSample>& samples);
void writeJobsCsv(std::ostream& out, const std::vector<JobOutcome>& jobs);

}  // namespace tessera
