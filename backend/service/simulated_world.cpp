#include "service/simulated_world.h"

#include <algorithm>

#include "core/engine_text.h"
#include "sim/simulator.h"
#include "sim/synthetic.h"

namespace tessera {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kLoadChunk = 200;  // synthetic arrivals generated at a time
constexpr const char* kChunkKey = "load.chunk";
constexpr const char* kFaultsKey = "faults";

// The teams synthetic jobs go to: the leaves of the team tree (or whatever teams there are).
std::vector<std::string> loadTeams(const Engine& engine) {
  std::vector<std::string> teams;
  for (const Team& t : engine.quotas().teams())
    if (!t.parent.empty()) teams.push_back(t.name);
  if (teams.empty())
    for (const Team& t : engine.quotas().teams()) teams.push_back(t.name);
  if (teams.empty()) teams = {"default"};
  return teams;
}

}  // namespace

SimulatedWorld::SimulatedWorld(SimulatedWorldConfig config)
    : config_(config),
      speed_(config.speed),
      telemetry_(config.seed),
      faults_(config.gpuFaultsPerDay, config.gpuFaultRepair, config.seed) {}

void SimulatedWorld::startClock(Seconds engineNow) {
  engineBase_ = engineNow;
  clockBase_ = Clock::now();
}

Seconds SimulatedWorld::now(Seconds engineNow) const {
  const double elapsed = std::chrono::duration<double>(Clock::now() - clockBase_).count();
  return std::max(engineNow, engineBase_ + static_cast<Seconds>(elapsed * speed_));
}

void SimulatedWorld::setSpeed(Seconds engineNow, double speed) {
  // Re-based where the engine stands: a pause then freezes the time operators last saw.
  startClock(engineNow);
  speed_ = std::max(0.0, speed);
}

// The load generator's chunk and the injector's faults; none (a new database, or one from
// before faults) starts them afresh. The chunk's arrivals are regenerated from the restart time.
Status SimulatedWorld::restore(const Engine& engine, const BackendExtras& extras) {
  arrivals_.clear();
  chunkEnd_ = -1;
  faults_ = GpuFaultInjector(config_.gpuFaultsPerDay, config_.gpuFaultRepair, config_.seed);
  for (const auto& [key, value] : extras.meta) {
    if (key == kChunkKey) {
      try {
        loadChunk_ = std::stoull(value);
      } catch (const std::exception&) {
        return Error{"stored load generator position '" + value + "' is not a number", {}};
      }
    }
    if (key == kFaultsKey) TESSERA_CHECK(faults_.restore(value, engine));
  }
  return okStatus();
}

void SimulatedWorld::save(const Engine& engine, BackendExtras& extras) const {
  extras.meta = {{kChunkKey, std::to_string(loadChunk_)},
                 {kFaultsKey, faults_.save(engine.cluster())}};
}

void SimulatedWorld::beforeCycle(Engine& engine, BackendExtras& extras) {
  endJobs(engine, extras);
  faults_.advance(engine);
  generateLoad(engine, extras);
}

void SimulatedWorld::endJobs(Engine& engine, const BackendExtras& extras) {
  std::vector<JobId> ending;
  for (const JobRecord* r : engine.running()) {
    const auto it = extras.actualRuntime.find(r->job.id);
    const Seconds runtime = it != extras.actualRuntime.end() ? it->second : runtimeOf(r->job);
    if (r->startTime + std::max<Seconds>(0, runtime - r->workKept) <= engine.now())
      ending.push_back(r->job.id);
  }
  for (JobId id : ending) (void)engine.complete(id, phrase(text::kFinishedSimulated));
}

bool SimulatedWorld::refillArrivals(const Engine& engine) {
  SyntheticConfig sc;
  sc.jobs = kLoadChunk;
  sc.arrivalsPerHour = config_.arrivalsPerHour;
  sc.runtimeScale = config_.runtimeScale;
  sc.seed = config_.seed * 1000003 + loadChunk_;
  sc.teams = loadTeams(engine);
  auto trace = synthesize(engine.cluster(), sc);
  if (!trace || trace->jobs.empty()) return false;
  const Seconds start = chunkEnd_ < 0 ? engine.now() : chunkEnd_;
  for (auto& tj : trace->jobs) {
    tj.job.submitTime += start;
    arrivals_.push_back(std::move(tj));
  }
  chunkEnd_ = arrivals_.back().job.submitTime;
  return true;
}

void SimulatedWorld::generateLoad(Engine& engine, BackendExtras& extras) {
  const Seconds now = engine.now();
  while (true) {
    if (arrivals_.empty() && !refillArrivals(engine)) return;
    if (arrivals_.front().job.submitTime > now) return;
    TraceJob tj = std::move(arrivals_.front());
    arrivals_.pop_front();
    if (arrivals_.empty()) ++loadChunk_;
    tj.job.id = extras.nextJob;
    tj.job.submitTime = now;
    if (!engine.validate(tj.job)) continue;  // a class or team the tenants do not have
    if (!engine.submit(tj.job, "load-generator")) continue;
    ++extras.nextJob;
    extras.actualRuntime[tj.job.id] = tj.runtime;
  }
}

void SimulatedWorld::afterCycle(const Engine& engine) {
  lastTelemetry_ = telemetry_.gpus(engine.state(), engine.now(), [&](JobId id) {
    const JobRecord* r = engine.job(id);
    return r ? defaultUsage(r->job) : UsageProfile::ComputeBound;
  });
}

void SimulatedWorld::submitted(const Job& job, BackendExtras& extras) {
  extras.actualRuntime[job.id] = runtimeOf(job);
}

std::optional<JobTelemetry> SimulatedWorld::jobTelemetry(const JobRecord& job, Seconds t) const {
  return telemetry_.sample(job.job.id, defaultUsage(job.job), t);
}

void SimulatedWorld::describeGpu(GpuId g, Seconds, GpuView& view) const {
  if (const ActiveGpuFault* f = faults_.faultOf(g))
    view.fault = GpuView::Fault{f->xid, xidMessage(f->xid), f->since, f->until};
  if (g >= lastTelemetry_.size()) return;
  const GpuTelemetry& t = lastTelemetry_[g];
  view.util = t.value.util;
  view.smActive = t.value.sm;
  view.tensorActive = t.value.tensor;
  view.memoryUsed = t.value.memory;
  view.power = t.value.power;
  view.temperatureC = t.temperatureC;
}

Expected<TelemetryPush> SimulatedWorld::pushTelemetry(Engine&, const DcgmScrape&,
                                                      const std::string&) {
  return Error::wrongState(
      literal("this tesserad runs in simulated-live mode and synthesizes its own telemetry; "
              "push telemetry to a live one"));
}

}  // namespace tessera
