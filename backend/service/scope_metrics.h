#pragma once
// GPU use per scope for the console's utilization charts: for every team (its sub-teams
// included, as fair share counts them, so a department's line is its teams' work) and every pool
// of the cluster, the GPUs allocated and - where telemetry exists - busy (GPU util), SM active and
// tensor active, as metric samples named `gpus_allocated{team="llm"}`, `gpus_busy{pool="dev"}`...
//
// Read from the engine's running jobs only, never the finished ones, so the cost follows the
// running work however long the backend has been up; the series count follows the teams and
// pools, which the setup fixes.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/telemetry.h"

namespace tessera {

class Engine;
struct JobRecord;

// A running job's telemetry on each GPU it holds; nullopt when there is none (live mode).
using JobTelemetryOf = std::function<std::optional<JobTelemetry>(const JobRecord&)>;

// GPU equivalents, counted as the cluster-wide series count them (a MIG instance by its memory
// slices, a time-sliced share by its thousandths); busy, SM active and tensor active are the
// allocation weighted by the jobs' telemetry, so each is at most the allocation.
struct ScopeUse {
  double allocated = 0;
  double busy = 0;
  double smActive = 0;
  double tensorActive = 0;
};

struct ScopeUsage {
  std::vector<ScopeUse> teams;                          // per team of the engine's QuotaBook
  std::vector<std::pair<std::string, ScopeUse>> pools;  // per pool, as Cluster::pools() lists them
};

[[nodiscard]] ScopeUsage scopeUsage(const Engine& engine, const JobTelemetryOf& telemetryOf);

// The samples of `usage`: allocated always, busy, SM active and tensor active only
// `withTelemetry` (a missing line must stay missing, not read as zero). A team or pool whose
// name cannot be part of a series name is left out.
[[nodiscard]] std::vector<std::pair<std::string, double>> scopeSamples(const Engine& engine,
                                                                       const ScopeUsage& usage,
                                                                       bool withTelemetry);

// `metric{label="value"}`; nullopt when `value` would make an invalid or ambiguous series name
// (quotes, braces, commas, spaces: a name with them would be refused by the metric store and
// take the whole sample batch down with it).
[[nodiscard]] std::optional<std::string> labelledSeries(std::string_view metric,
                                                        std::string_view label,
                                                        std::string_view value);

}  // namespace tessera
