#pragma once
// Synthetic GPU telemetry for simulated jobs, so the gap between "allocated", "busy" (what
// nvidia-smi calls GPU utilization) and "effective" (SM active, what DCGM's
// DCGM_FI_PROF_SM_ACTIVE measures) is visible. Each usage profile has its own levels: an
// input-bound trainer shows ~95 % GPU util but ~20 % SM active; an idle notebook holds a GPU
// and does almost nothing. Values are deterministic in (seed, job, minute).
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "core/ids.h"
#include "scheduler/cluster_state.h"
#include "sim/trace.h"

namespace tessera {

// All fractions are 0..1 of the GPU (or of the job's share of it).
struct JobTelemetry {
  double util = 0;    // DCGM_FI_DEV_GPU_UTIL: a kernel was running
  double sm = 0;      // DCGM_FI_PROF_SM_ACTIVE
  double tensor = 0;  // DCGM_FI_PROF_PIPE_TENSOR_ACTIVE
  double dram = 0;    // DCGM_FI_PROF_DRAM_ACTIVE
  double memory = 0;  // framebuffer used / framebuffer the job holds
  double power = 0;   // power draw / board power limit
};

struct GpuTelemetry {
  JobTelemetry value;       // weighted over the GPU's users (MIG slices, shares); zero when idle
  double allocated = 0;     // fraction of the GPU held by jobs (1 for a whole GPU)
  double temperatureC = 0;  // DCGM_FI_DEV_GPU_TEMP: the board's, from its power (idle boards too)
};

class TelemetryModel {
 public:
  // GPU temperature: kIdleTemperatureC at idle power, kFullPowerTemperatureC at the power limit,
  // linear in between, plus up to +-kTemperatureNoiseC per (seed, GPU, minute).
  static constexpr double kIdlePower = 0.12;  // an idle board's draw / its power limit
  static constexpr double kIdleTemperatureC = 32;
  static constexpr double kFullPowerTemperatureC = 82;
  static constexpr double kTemperatureNoiseC = 1.5;

  explicit TelemetryModel(uint64_t seed = 1) : seed_(seed) {}
  // The job's telemetry at time t (per GPU it holds).
  [[nodiscard]] JobTelemetry sample(JobId job, UsageProfile usage, Seconds t) const;
  // GPU g's temperature in °C at time t when it draws `power` (draw / board power limit).
  [[nodiscard]] double temperatureC(GpuId g, double power, Seconds t) const;
  // Every GPU of the cluster at time t; `usageOf` gives each job's profile.
  template <typename UsageOf>
  [[nodiscard]] std::vector<GpuTelemetry> gpus(const ClusterState& state, Seconds t,
                                               UsageOf&& usageOf) const {
    std::vector<GpuTelemetry> out(state.cluster().gpus().size());
    // A job on 8 GPUs reads the same on each: sample it once.
    std::unordered_map<JobId, JobTelemetry> byJob;
    for (GpuId g = 0; g < out.size(); ++g) {
      const GpuOccupancy& o = state.gpu(g);
      auto add = [&](JobId job, double share) {
        auto [it, fresh] = byJob.try_emplace(job);
        if (fresh) it->second = sample(job, usageOf(job), t);
        accumulate(out[g], it->second, share);
      };
      if (o.wholeOwner != kNoJob) add(o.wholeOwner, 1.0);
      for (const auto& s : o.shares) add(s.job, s.milli / 1000.0);
      for (const auto& c : o.mpsClients) add(c.job, c.threads / 100.0);
      addMig(state, g, o, add);
      finish(out[g]);
      out[g].temperatureC = temperatureC(g, out[g].value.power, t);
    }
    return out;
  }

 private:
  static void accumulate(GpuTelemetry& g, const JobTelemetry& v, double share);
  static void finish(GpuTelemetry& g);
  template <typename Add>
  static void addMig(const ClusterState& state, GpuId g, const GpuOccupancy& o, Add& add) {
    const auto& mig = state.cluster().modelOf(g).mig;
    if (!mig) return;
    for (int i = 0; i < o.layout.size(); ++i) {
      const JobId owner = o.instanceOwner[static_cast<size_t>(i)];
      if (owner == kNoJob) continue;
      add(owner, double(mig->profiles[static_cast<size_t>(o.layout[i].profile)].memorySlices) /
                     mig->memorySlices);
    }
  }
  uint64_t seed_;
};

}  // namespace tessera
