#pragma once
// The usage ledger: what every run of every job held (which nodes, GPU model and pool, whole
// GPUs, MIG instances, time-sliced shares or MPS shares) from when to when, how it ended, and its
// telemetry over time. Reports are computed from it (backend/report). The recorder follows the
// engine's event log; the backend stores what it records in the same group commit as the events,
// and `tessera simulate --record` writes a simulation's into a database of the same shape.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/ids.h"
#include "sim/telemetry.h"

namespace tessera {

class Engine;
struct JobRecord;

// One telemetry reading of a run. Fractions are kept in 0.5 % steps (0..200); kNoTelemetry
// means the reading was missing. A reading stands for the time from it to the next one (or the
// run's end); the run's time before its first reading takes the first reading's values.
struct UsageSample {
  static constexpr uint8_t kNoTelemetry = 255;
  Seconds time = 0;
  uint8_t util = kNoTelemetry;  // GPU utilization
  uint8_t sm = kNoTelemetry;    // SM active
  [[nodiscard]] bool measured() const { return util != kNoTelemetry; }
  [[nodiscard]] double utilFraction() const { return util / 200.0; }
  [[nodiscard]] double smFraction() const { return sm == kNoTelemetry ? 0 : sm / 200.0; }
  static uint8_t quantize(double fraction);
};

// What a run holds on one node.
struct UsageShare {
  std::string node;
  std::string model;  // GPU model (catalog id)
  std::string pool;
  double gpus = 0;    // GPU equivalents (a MIG instance: its memory slices / the GPU's)
  int units = 0;      // whole GPUs, MIG instances, shares or MPS clients
  int migSlices = 0;  // MIG memory slices
};

// Mps: an MPS client, its GPU equivalents the active-thread share (its own category: an MPS share
// is neither time-sliced nor isolated).
enum class UsageKind : uint8_t { Whole, Mig, Fraction, Mps };
const char* usageKindName(UsageKind k);  // "gpu", "mig", "fraction", "mps"

// One node's part of one run: the ledger's row.
struct UsageRecord {
  JobId job = kNoJob;
  int run = 1;   // 1 = the job's first run
  int part = 0;  // the node's index among the run's nodes (0 carries the run's counters)
  std::string team;
  std::string priorityClass;
  std::string workloadClass;
  UsageKind kind = UsageKind::Whole;
  std::string profile;  // MIG profile
  UsageShare share;
  Seconds start = 0;
  std::optional<Seconds> end;  // nullopt: still running
  std::string endReason;       // completed, failed, cancelled, preempted, requeued
  double gpuHoursLost = 0;     // work lost when preempted (part 0 only)
  std::vector<UsageSample> samples;
};

class UsageRecorder {
 public:
  // The telemetry of a running job now (per GPU it holds); nullopt when there is none (a live
  // cluster without DCGM data). Without a function, runs carry no telemetry.
  using TelemetryOf = std::function<std::optional<JobTelemetry>(const JobRecord&, Seconds)>;
  explicit UsageRecorder(TelemetryOf telemetry = {}) : telemetry_(std::move(telemetry)) {}

  // Reads the engine's events from where the last call stopped: opens a run for every job that
  // started (with its placement now) and closes the run of every job that stopped running.
  // Call it after every batch of engine changes, before the placements change again.
  void follow(const Engine& engine);
  // A telemetry reading for every open run at the engine's time.
  void sample(const Engine& engine);
  // The rows opened, sampled or closed since the last markSaved(), one per node of each run.
  [[nodiscard]] std::vector<UsageRecord> changed() const;
  // Closed runs leave memory once saved.
  void markSaved();
  // Carries on after a restart (or a rollback) with the open runs as stored, from the end of
  // the engine's event log.
  void resume(const Engine& engine, std::vector<UsageRecord> open);
  [[nodiscard]] size_t openRuns() const { return open_.size(); }

 private:
  struct Run {
    std::vector<UsageRecord> parts;  // one per node; samples live in parts[0]
    double lostAtStart = 0;
    bool dirty = true;
  };
  void open(const Engine& engine, JobId job);
  void close(const Engine& engine, JobId job, const char* reason);

  TelemetryOf telemetry_;
  uint64_t seen_ = 0;  // events followed, counted from the engine's first
  std::unordered_map<JobId, Run> open_;
  std::vector<Run> closed_;  // not saved yet
};

}  // namespace tessera
