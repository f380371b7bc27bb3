#include "service/live_world.h"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <optional>
#include <random>

#include "core/engine_text.h"
#include "service/gpu_faults.h"

namespace tessera {
namespace {

constexpr const char* kActor = "tesserad";
constexpr const char* kTelemetryActor = "telemetry";

// The jobs on GPU `g` go back to the queue, booked as preemptions with the fault as reason.
void requeueJobsOn(Engine& engine, GpuId g, const Text& why) {
  for (JobId v : engine.runningJobsOn(engine.cluster().gpu(g).node, g))
    (void)engine.preempt(v, kNoJob, kActor, why);
}

// The node's GPU at a device index the cluster reports; none when the node has no such GPU.
std::optional<GpuId> gpuAt(const Node& node, int index) {
  if (index < 0 || index >= node.gpuCount()) return std::nullopt;
  return node.firstGpu + static_cast<GpuId>(index);
}

}  // namespace

LiveWorld::LiveWorld(std::unique_ptr<Executor> executor, const GpuCatalog* catalog, bool autoAdmit)
    : executor_(executor ? std::move(executor) : std::make_unique<NoExecutor>()),
      inventory_(catalog, autoAdmit) {
  // Under Slurm the executor applies repartitions (the site's hook); elsewhere the node agents do.
  inventory_.setMigApply(executor_->status().name != "slurm");
}

Seconds LiveWorld::now(Seconds engineNow) const {
  return std::max(engineNow, static_cast<Seconds>(std::time(nullptr)));
}

namespace {
constexpr const char* kInstanceKey = "instance";

// 64 random bits in hex: unique enough among the databases that ever drive one cluster.
std::string newInstance() {
  std::random_device rd;
  const uint64_t v = (uint64_t{rd()} << 32) ^ rd();
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}
}  // namespace

Status LiveWorld::restore(const Engine& engine, const BackendExtras& extras) {
  instance_.clear();
  for (const auto& [key, value] : extras.meta)
    if (key == kInstanceKey) instance_ = value;
  if (instance_.empty()) instance_ = newInstance();  // saved with the next commit
  inventory_.restore(engine, extras.meta);
  executor_->resync(instance_);
  return okStatus();
}

void LiveWorld::save(const Engine& engine, BackendExtras& extras) const {
  extras.meta = {{kInstanceKey, instance_}};
  inventory_.save(engine, extras.meta);
}

void LiveWorld::beforeCycle(Engine& engine, BackendExtras& extras) {
  applyObservations(engine, extras, executor_->observe(engine));
  // Before the decisions: a node repartitioned since the last cycle is held before anything new
  // starts on instances it does not have yet.
  inventory_.holdPendingLayouts(engine);
}

void LiveWorld::applyObservations(Engine& engine, BackendExtras& extras, const Observations& seen) {
  for (const observed::JobEnded& end : seen.ended) {
    const JobRecord* r = engine.job(end.job);
    if (!r || r->state != JobState::Running) continue;
    (void)(end.ok ? engine.complete(end.job, end.reason) : engine.fail(end.job, end.reason));
  }
  for (const observed::JobBounced& b : seen.bounced) {
    const JobRecord* r = engine.job(b.job);
    if (!r || r->state != JobState::Running) continue;
    (void)engine.preempt(b.job, kNoJob, kActor, b.reason);
    // Refused again where it was refused before: placed there once more otherwise, forever.
    if (b.hold) (void)engine.hold(b.job, true, kActor);
  }
  for (const observed::JobGone& g : seen.gone) {
    const JobRecord* r = engine.job(g.job);
    if (r && r->active()) (void)engine.cancel(g.job, kActor, g.reason);
  }
  for (const observed::Offer& offer : seen.offers) adopt(engine, extras, offer);
  for (const observed::JobBound& b : seen.bound) rebind(engine, b);
  for (const observed::NodeOut& n : seen.nodes) {
    const Node* node = engine.cluster().findNode(n.node);
    if (!node) continue;
    if (!n.out) {
      (void)engine.removeNodeHold(node->id, HoldOwner::Executor);
      continue;
    }
    // Down only once its jobs have ended (the executor reports those first); until then the
    // node drains, so the engine never shows a down node running work.
    const bool down = n.down && engine.runningJobsOn(node->id).empty();
    (void)engine.putNodeHold(node->id, NodeHold{HoldOwner::Executor, {}, n.reason, down, 0});
  }
}

std::optional<JobTelemetry> LiveWorld::jobTelemetry(const JobRecord& job, Seconds t) const {
  return live_.jobTelemetry(job, t);
}

void LiveWorld::describeGpu(GpuId g, Seconds now, GpuView& view) const {
  const LiveGpuReading* r = live_.reading(g, now);
  if (!r) return;
  view.util = r->util;
  view.smActive = r->smActive;
  view.tensorActive = r->tensorActive;
  view.memoryUsed = r->memoryUsed;
  view.temperatureC = r->temperatureC;
  if (r->xid > 0)
    view.fault = GpuView::Fault{r->xid, r->xidMessage.empty() ? xidMessage(r->xid) : r->xidMessage,
                                r->xidSince, std::nullopt};
}

Expected<TelemetryPush> LiveWorld::pushTelemetry(Engine& engine, const DcgmScrape& scrape,
                                                 const std::string& node) {
  auto taken = live_.ingest(engine.cluster(), scrape, node, engine.now());
  if (!taken) return taken;
  holdFaultyGpus(engine, node);
  if (!node.empty()) inventory_.holdPendingLayout(engine, node);
  taken->migApply = inventory_.migWork(engine, node);
  return taken;
}

// A job users sbatch'ed joins the queue like one submitted through Tessera, with the next id;
// one the engine could never run stays held in Slurm with the refusal as its comment.
void LiveWorld::adopt(Engine& engine, BackendExtras& extras, const observed::Offer& offer) {
  if (!offer.refusal.empty()) return executor_->refused(offer.externalId, offer.refusal);
  Job job = offer.job;
  job.id = extras.nextJob;
  // One found running was submitted before it started, as far as the engine can know.
  job.submitTime =
      offer.running.empty() ? engine.now() : std::clamp<Seconds>(offer.started, 0, engine.now());
  job.state = JobState::Pending;
  if (const Status ok = engine.validate(job); !ok)
    return executor_->refused(offer.externalId, ok.error().message);
  auto id = engine.submit(std::move(job), kActor);
  if (!id) return executor_->refused(offer.externalId, id.error().message);
  ++extras.nextJob;
  if (!offer.running.empty()) {
    if (const Status st = takeRunning(engine, *id, offer); !st) {
      (void)engine.cancel(*id, kActor, literal(st.error().message));
      return executor_->refused(offer.externalId, st.error().message);
    }
  }
  executor_->adopted(offer.externalId, *id);
}

// The engine's tasks on each node take, in order, the GPUs the cluster bound there (a share or
// an MPS client: its one GPU). A binding the engine cannot take (GPUs it counts as busy, or
// without room for the share) is left: the two maps then differ until the job ends, and nothing
// else is at stake (the cluster counts GPUs per node, as the engine does).
void LiveWorld::rebind(Engine& engine, const observed::JobBound& bound) {
  const JobRecord* r = engine.job(bound.job);
  if (!r || r->state != JobState::Running || !r->placement) return;
  const Cluster& c = engine.cluster();
  std::map<NodeId, std::pair<std::vector<int>, size_t>> given;  // node -> (indices, next)
  for (const auto& [name, gpus] : bound.gpus)
    if (const Node* n = c.findNode(name)) given[n->id] = {gpus, 0};
  std::vector<Engine::RestoredTask> tasks;
  for (const TaskAssignment& t : r->placement->tasks) {
    auto it = given.find(t.node);
    if (it == given.end()) return;
    auto& [gpus, next] = it->second;
    Engine::RestoredTask task{t.node, {}, -1};
    for (size_t k = 0; k < t.gpus.size(); ++k, ++next) {
      const auto g = next < gpus.size() ? gpuAt(c.node(t.node), gpus[next]) : std::nullopt;
      if (!g) return;
      task.gpus.push_back(*g);
    }
    tasks.push_back(std::move(task));
  }
  (void)engine.rebind(bound.job, tasks, kActor);
}

// A job found running in the cluster occupies exactly the GPUs it holds there.
Status LiveWorld::takeRunning(Engine& engine, JobId id, const observed::Offer& offer) {
  const Cluster& c = engine.cluster();
  std::vector<Engine::RestoredTask> tasks;
  for (const observed::Offer::RunningTask& t : offer.running) {
    const Node* node = c.findNode(t.node);
    if (!node) return Error{"runs on " + t.node + ", which is not in Tessera's cluster", {}};
    Engine::RestoredTask task{node->id, {}, -1};
    for (int i : t.gpus) {
      const auto g = gpuAt(*node, i);
      if (!g)
        return Error{"holds GPU " + std::to_string(i) + " of " + t.node + ", which has " +
                         std::to_string(node->gpuCount()),
                     {}};
      task.gpus.push_back(*g);
    }
    tasks.push_back(std::move(task));
  }
  const Seconds started = std::clamp<Seconds>(offer.started, 0, engine.now());
  if (const Status st = engine.restoreRunning(id, tasks, started, 0); !st)
    return Error{
        "runs outside Tessera where the engine cannot account for it: " + st.error().message, {}};
  return okStatus();
}

// The hold follows the agent's fresh readings: put when a GPU reports an Xid that needs a
// reset, removed when it reports none (the exporter clears the Xid only when the driver
// reloads, i.e. after the reset). A GPU without a fresh reading keeps what it had.
void LiveWorld::holdFaultyGpus(Engine& engine, const std::string& node) {
  const Cluster& c = engine.cluster();
  if (node.empty()) {
    for (const Gpu& g : c.gpus()) holdFaultyGpu(engine, g);
    return;
  }
  // A named node's push carries only its own rows (LiveTelemetry::ingest).
  const Node* n = c.findNode(node);
  if (!n) return;
  for (int i = 0; i < n->gpuCount(); ++i)
    holdFaultyGpu(engine, c.gpu(n->firstGpu + static_cast<GpuId>(i)));
}

void LiveWorld::holdFaultyGpu(Engine& engine, const Gpu& g) {
  const Cluster& c = engine.cluster();
  const LiveGpuReading* r = live_.reading(g.id, engine.now());
  if (!r) return;
  const bool held = engine.nodeHolds(g.node).find(HoldOwner::GpuFault, g.id) != nullptr;
  if (r->xid > 0 && !held) {
    const std::string message = r->xidMessage.empty() ? xidMessage(r->xid) : r->xidMessage;
    requeueJobsOn(engine, g.id, phrase(text::kGpuFault, c.gpuName(g.id), r->xid, message));
    (void)engine.putNodeHold(
        g.node, NodeHold{HoldOwner::GpuFault, g.id, phrase(text::kOutXid, r->xid, c.gpuName(g.id)),
                         false, r->xidSince});
    // The hold alone is state; the event tells the log and watchers when and why.
    engine.recordCommand(kTelemetryActor,
                         literal("GPU " + c.gpuName(g.id) + ": Xid " + std::to_string(r->xid) +
                                 " (" + message + "): held out (fault)"));
  } else if (r->xid == 0 && held) {  // a missing GPU stays out: the inventory's own hold
    (void)engine.removeNodeHold(g.node, HoldOwner::GpuFault, g.id);
    engine.recordCommand(kTelemetryActor,
                         literal("GPU " + c.gpuName(g.id) + ": no Xid any more: hold lifted"));
  }
}

}  // namespace tessera
