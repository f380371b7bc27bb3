#include "sim/telemetry.h"

#include <algorithm>
#include <cmath>

#include "core/mix.h"

namespace tessera {
namespace {

// Per profile: mean level of each counter and how much it wanders minute to minute.
struct Levels {
  double util, sm, tensor, dram, memory, power, jitter;
};
Levels levelsOf(UsageProfile p) {
  switch (p) {
    case UsageProfile::ComputeBound:
      return {0.97, 0.78, 0.55, 0.45, 0.85, 0.88, 0.05};
    case UsageProfile::InputBound:
      return {0.94, 0.20, 0.08, 0.15, 0.60, 0.42, 0.05};
    case UsageProfile::Inference:
      return {0.45, 0.30, 0.18, 0.25, 0.70, 0.45, 0.25};
    case UsageProfile::IdleNotebook:
      return {0.03, 0.01, 0.00, 0.01, 0.30, 0.16, 0.02};
  }
  return {};
}

}  // namespace

JobTelemetry TelemetryModel::sample(JobId job, UsageProfile usage, Seconds t) const {
  const Levels l = levelsOf(usage);
  const uint64_t jobKey = mixBits(seed_ ^ mixBits(job));
  // Each job sits somewhat above or below its profile's mean for its whole life...
  const double bias = 0.85 + 0.3 * unitOf(jobKey);
  // ...and wanders minute to minute; inference also follows a daily cycle.
  const double wander =
      (unitOf(mixBits(jobKey ^ static_cast<uint64_t>(t / 60))) - 0.5) * 2 * l.jitter;
  double load = bias + wander;
  if (usage == UsageProfile::Inference)
    load *= 0.55 + 0.45 * std::sin(2 * M_PI * double(t % 86400) / 86400.0);
  auto clamp = [](double v) { return std::clamp(v, 0.0, 1.0); };
  JobTelemetry v;
  v.util = clamp(l.util * load);
  v.sm = clamp(std::min(v.util, l.sm * load));  // SM activity never exceeds "a kernel ran"
  v.tensor = clamp(std::min(v.sm, l.tensor * load));
  v.dram = clamp(l.dram * load);
  v.memory = clamp(l.memory * bias);
  v.power = clamp(kIdlePower + (l.power - kIdlePower) * load);
  return v;
}

double TelemetryModel::temperatureC(GpuId g, double power, Seconds t) const {
  const double load = std::clamp((power - kIdlePower) / (1 - kIdlePower), 0.0, 1.0);
  // A different stream from the jobs' (a GPU and a job may share a number).
  const uint64_t gpuKey = mixBits(seed_ ^ mixBits(0x7e3a5c1d00000000ULL ^ g));
  const double noise =
      (unitOf(mixBits(gpuKey ^ static_cast<uint64_t>(t / 60))) - 0.5) * 2 * kTemperatureNoiseC;
  return kIdleTemperatureC + (kFullPowerTemperatureC - kIdleTemperatureC) * load + noise;
}

void TelemetryModel::accumulate(GpuTelemetry& g, const JobTelemetry& v, double share) {
  g.allocated += share;
  g.value.util += v.util * share;
  g.value.sm += v.sm * share;
  g.value.tensor += v.tensor * share;
  g.value.dram += v.dram * share;
  g.value.memory += v.memory * share;
  g.value.power += v.power * share;
}

void TelemetryModel::finish(GpuTelemetry& g) {
  // Shares of a time-sliced GPU add up; a GPU cannot be more than fully busy.
  for (double* f : {&g.value.util, &g.value.sm, &g.value.tensor, &g.value.dram, &g.value.memory})
    *f = std::min(*f, 1.0);
  // An idle board still draws its idle power.
  g.value.power = std::min(1.0, g.value.power + kIdlePower * std::max(0.0, 1.0 - g.allocated));
}

}  // namespace tessera
