#pragma once
// The demo world of simulated-live mode: the engine clock runs `speed` times faster than the
// wall clock, synthetic jobs arrive (a chunk at a time, from a seed the database keeps), each
// job ends when its simulated runtime is over, GPU faults are injected (gpu_faults.h) and
// telemetry is modelled. A restart picks it all up from the database.
#include <chrono>
#include <deque>

#include "service/gpu_faults.h"
#include "service/world.h"
#include "sim/trace.h"

namespace tessera {

struct SimulatedWorldConfig {
  double speed = 60.0;            // engine seconds per wall second
  double arrivalsPerHour = 120;   // synthetic arrivals per engine hour
  double gpuFaultsPerDay = 0;     // Xid faults per engine day
  Seconds gpuFaultRepair = 1800;  // how long a faulted GPU stays out
  uint64_t seed = 1;
  double runtimeScale = 1.0;  // multiplies synthetic runtimes (a soak test's faster churn)
};

class SimulatedWorld final : public World {
 public:
  explicit SimulatedWorld(SimulatedWorldConfig config);
  [[nodiscard]] BackendMode mode() const override { return BackendMode::SimulatedLive; }
  void startClock(Seconds engineNow) override;
  [[nodiscard]] Seconds now(Seconds engineNow) const override;
  void setSpeed(Seconds engineNow, double speed) override;
  Status restore(const Engine& engine, const BackendExtras& extras) override;
  void save(const Engine& engine, BackendExtras& extras) const override;
  void beforeCycle(Engine& engine, BackendExtras& extras) override;
  void afterDecisions(const Engine&) override {}
  void afterCycle(const Engine& engine) override;
  void submitted(const Job& job, BackendExtras& extras) override;
  [[nodiscard]] const std::vector<GpuTelemetry>* modelledTelemetry() const override {
    return &lastTelemetry_;
  }
  [[nodiscard]] std::optional<JobTelemetry> jobTelemetry(const JobRecord& job,
                                                         Seconds t) const override;
  void describeGpu(GpuId g, Seconds now, GpuView& view) const override;
  Expected<TelemetryPush> pushTelemetry(Engine&, const DcgmScrape&, const std::string&) override;
  [[nodiscard]] ExecutorStatus executor() const override { return {}; }
  [[nodiscard]] Status admit(const Job&) const override { return okStatus(); }
  [[nodiscard]] std::optional<ExternalJob> externalJob(JobId) const override {
    return std::nullopt;
  }

 private:
  // A job submitted through the API runs for its estimate (an hour when it gives none): the
  // demo needs its jobs to end.
  static Seconds runtimeOf(const Job& job) { return job.estimatedRuntime.value_or(3600); }
  void endJobs(Engine& engine, const BackendExtras& extras);
  void generateLoad(Engine& engine, BackendExtras& extras);
  bool refillArrivals(const Engine& engine);

  SimulatedWorldConfig config_;
  // Clock: engine time `engineBase_` at wall time `clockBase_`.
  Seconds engineBase_ = 0;
  std::chrono::steady_clock::time_point clockBase_;
  double speed_;
  std::deque<TraceJob> arrivals_;  // the current chunk's arrivals not yet submitted
  uint64_t loadChunk_ = 0;
  // Where the next chunk's arrivals start: the last one's end, so that a tick covering several
  // chunks (a high speed) submits them all (-1: the engine's clock, at start and restart).
  Seconds chunkEnd_ = -1;
  Seconds chunkStart_ = 0;  // 0: the next chunk starts at the engine's time
  TelemetryModel telemetry_;
  GpuFaultInjector faults_;
  std::vector<GpuTelemetry> lastTelemetry_;
};

}  // namespace tessera
