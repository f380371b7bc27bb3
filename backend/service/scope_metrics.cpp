#include "service/scope_metrics.h"

#include <algorithm>
#include <unordered_map>

#include "scheduler/engine.h"
#include "store/metric_store.h"

namespace tessera {

namespace {

// GPU equivalents `job` holds on GPU g, as MetricsRecorder counts a GPU's holders.
double heldOn(const ClusterState& s, GpuId g, JobId job) {
  const GpuOccupancy& o = s.gpu(g);
  if (o.wholeOwner == job) return 1;
  double held = 0;
  for (const auto& share : o.shares)
    if (share.job == job) held += share.milli / 1000.0;
  if (const auto& mig = s.cluster().modelOf(g).mig)
    for (int i = 0; i < o.layout.size(); ++i)
      if (o.instanceOwner[static_cast<size_t>(i)] == job)
        held += double(mig->profiles[static_cast<size_t>(o.layout[i].profile)].memorySlices) /
                mig->memorySlices;
  return held;
}

void add(ScopeUse& u, double held, const std::optional<JobTelemetry>& t) {
  u.allocated += held;
  if (!t) return;
  u.busy += held * t->util;
  u.smActive += held * t->sm;
  u.tensorActive += held * t->tensor;
}

// Every GPU the job's tasks hold, each once (tasks of a gang may share a MIG GPU or a
// time-sliced one; heldOn already sums all of the job's holdings there).
std::vector<GpuId> gpusOf(const JobRecord& r) {
  std::vector<GpuId> gpus;
  for (const auto& task : r.placement->tasks)
    gpus.insert(gpus.end(), task.gpus.begin(), task.gpus.end());
  std::sort(gpus.begin(), gpus.end());
  gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
  return gpus;
}

void addSamples(std::vector<std::pair<std::string, double>>& out, std::string_view label,
                const std::string& value, const ScopeUse& u, bool withTelemetry) {
  auto emit = [&](std::string_view metric, double v) {
    if (auto name = labelledSeries(metric, label, value)) out.emplace_back(std::move(*name), v);
  };
  emit("gpus_allocated", u.allocated);
  if (!withTelemetry) return;
  emit("gpus_busy", u.busy);
  emit("gpus_sm_active", u.smActive);
  emit("gpus_tensor_active", u.tensorActive);
}

}  // namespace

ScopeUsage scopeUsage(const Engine& engine, const JobTelemetryOf& telemetryOf) {
  const Cluster& c = engine.cluster();
  const QuotaBook& quotas = engine.quotas();
  ScopeUsage u;
  u.teams.resize(quotas.teams().size());
  std::unordered_map<std::string, size_t> poolIndex;
  for (auto& pool : c.pools()) {
    poolIndex.emplace(pool, u.pools.size());
    u.pools.emplace_back(std::move(pool), ScopeUse{});
  }
  for (const JobRecord* r : engine.running()) {
    if (!r->placement) continue;
    const std::optional<JobTelemetry> t = telemetryOf ? telemetryOf(*r) : std::nullopt;
    double total = 0;
    for (GpuId g : gpusOf(*r)) {
      const double held = heldOn(engine.state(), g, r->job.id);
      total += held;
      const auto it = poolIndex.find(c.node(c.gpu(g).node).pool);
      if (it != poolIndex.end()) add(u.pools[it->second].second, held, t);
    }
    // The job's team and its ancestors; bounded by the team count, whatever the tree.
    int team = r->team;
    for (size_t depth = 0; team >= 0 && depth < u.teams.size(); ++depth) {
      add(u.teams[static_cast<size_t>(team)], total, t);
      team = quotas.parentOf(team);
    }
  }
  return u;
}

std::vector<std::pair<std::string, double>> scopeSamples(const Engine& engine,
                                                         const ScopeUsage& usage,
                                                         bool withTelemetry) {
  std::vector<std::pair<std::string, double>> out;
  const auto& teams = engine.quotas().teams();
  for (size_t t = 0; t < teams.size() && t < usage.teams.size(); ++t)
    addSamples(out, "team", teams[t].name, usage.teams[t], withTelemetry);
  for (const auto& [pool, use] : usage.pools) addSamples(out, "pool", pool, use, withTelemetry);
  return out;
}

std::optional<std::string> labelledSeries(std::string_view metric, std::string_view label,
                                          std::string_view value) {
  if (value.empty() || value.find_first_of("\"{}=,") != std::string_view::npos) return std::nullopt;
  std::string name;
  name.reserve(metric.size() + label.size() + value.size() + 6);
  name.append(metric).append("{").append(label).append("=\"").append(value).append("\"}");
  if (!isValidMetricSeriesName(name)) return std::nullopt;
  return name;
}

}  // namespace tessera
