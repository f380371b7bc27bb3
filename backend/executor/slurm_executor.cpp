#include "executor/slurm_executor.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <set>

#include "service/mps_use.h"

namespace tessera {
namespace {

// Slurm reservation names: letters, digits, '-' and '_' only here, whatever the operator typed.
std::string slurmName(const std::string& id) {
  std::string out = id;
  for (char& ch : out)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '-' && ch != '_') ch = '_';
  return out;
}

std::string lowerFirstWord(const std::string& model) {
  std::string out = model.substr(0, model.find('-'));
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool isShare(const GpuRequest& r) {
  return r.kind == GpuRequest::Kind::Fraction || r.kind == GpuRequest::Kind::Mps;
}

// The GRES whose gres_detail indices name a running job's GPUs, where the engine can follow
// Slurm's choice of them: whole GPUs, a share's one shard, an MPS client's mps (on a GPU that
// runs MPS itself). Empty for MIG instances and MPS inside them: Slurm's index names neither
// the GPU of the one nor the instance of the other, so there is nothing to compare.
std::string boundGres(const JobRecord& r) {
  switch (r.job.perTask.kind) {
    case GpuRequest::Kind::Whole:
      return "gpu";
    case GpuRequest::Kind::Fraction:
      return "shard";
    case GpuRequest::Kind::Mps:
      for (const TaskAssignment& t : r.placement->tasks)
        if (t.migStart >= 0) return {};
      return "mps";
    case GpuRequest::Kind::Mig:
    case GpuRequest::Kind::None:
      break;
  }
  return {};
}

Error launchError(const std::string& message, const std::string& field) {
  return Error::of(literal(message), SourceLocation{"", 0, 0, field});
}

// The models of the cluster's GPUs in MIG mode that offer `profile`, in cluster order: only
// those have MIG GRES types in Slurm (an H100 outside MIG mode has no h100_3g.40gb).
std::vector<std::string> modelsWithProfile(const Cluster& c, const std::string& profile) {
  std::vector<std::string> out;
  for (const Gpu& g : c.gpus()) {
    const GpuModel& m = c.modelOf(g.id);
    if (g.sharing.mode == SharingMode::Mig && m.mig && m.mig->profileIndex(profile) >= 0 &&
        std::find(out.begin(), out.end(), m.id) == out.end())
      out.push_back(m.id);
  }
  return out;
}

}  // namespace

SlurmExecutor::SlurmExecutor(std::unique_ptr<slurm::CommandRunner> runner,
                             SlurmExecutorConfig config)
    : config_(std::move(config)),
      runner_(std::move(runner)),
      client_(std::make_unique<slurm::SlurmClient>(*runner_, config_.client)),
      driver_(*client_, config_.driver) {
  worker_ = std::thread([this] { run(); });
}

SlurmExecutor::~SlurmExecutor() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (worker_.joinable()) worker_.join();
}

ExecutorStatus SlurmExecutor::status() const {
  std::lock_guard lock(mutex_);
  return status_;
}

std::optional<ExternalJob> SlurmExecutor::job(JobId id) const {
  std::lock_guard lock(mutex_);
  const auto it = external_.find(id);
  if (it == external_.end()) return std::nullopt;
  return it->second;
}

// What Slurm can never run, refused at submit rather than accepted to wait forever.
Status SlurmExecutor::admit(const Job& job) const {
  if (job.launch.empty())
    return launchError("a job needs a command or a batch script to run on Slurm", "launch.command");
  // A share is one gres/shard or gres/mps request per node, and Slurm picks the node's GPU for
  // each task by itself: two tasks could land on one GPU the engine split between them.
  if (isShare(job.perTask) && job.tasks > 1)
    return launchError(
        "Slurm runs a shared-GPU job (a fraction or an MPS share) as one task "
        "here: ask for tasks: 1, or for whole GPUs",
        "tasks");
  return okStatus();
}

std::string SlurmExecutor::gresTypeOf(const std::string& model) const {
  const auto it = config_.gresTypes.find(model);
  return it != config_.gresTypes.end() ? it->second : lowerFirstWord(model);
}

std::optional<slurm::SubmitRequest> SlurmExecutor::submitRequest(const Engine& engine,
                                                                 const Job& job) const {
  if (job.launch.empty()) return std::nullopt;
  const JobLaunch& l = job.launch;
  slurm::SubmitRequest r;
  r.tesseraId = instance_ + "." + std::to_string(job.id);
  r.name = job.name.empty() ? "tessera-" + std::to_string(job.id) : job.name;
  r.timeLimitMinutes = l.timeLimitMinutes;
  if (r.timeLimitMinutes == 0 && job.estimatedRuntime)
    r.timeLimitMinutes = static_cast<int>((*job.estimatedRuntime + 59) / 60);
  if (r.timeLimitMinutes <= 0) r.timeLimitMinutes = config_.defaultTimeLimitMinutes;
  const auto mapped = [](const std::map<std::string, std::string>& m, const std::string& k) {
    const auto it = m.find(k);
    return it == m.end() ? std::string() : it->second;
  };
  r.partition = l.partition.empty() ? mapped(config_.poolPartitions, job.pool) : l.partition;
  r.account = l.account.empty() ? mapped(config_.teamAccounts, job.team) : l.account;
  r.nodes = 1;
  r.maxNodes = job.tasks > 1 ? job.tasks : 0;
  r.tasks = job.tasks;
  const auto& models = job.model.models;
  if (job.perTask.kind == GpuRequest::Kind::Whole && job.perTask.gpus > 0) {
    const std::string type = models.size() == 1 ? gresTypeOf(models.front()) + ":" : "";
    r.gpusPerTask = type + std::to_string(job.perTask.gpus);
  } else if (job.perTask.kind == GpuRequest::Kind::Mig) {
    // Slurm's MIG types are "<model type>_<profile>": the job's model, or the first that has
    // the profile (the GPU request cannot change after submit; docs/slurm.md).
    std::vector<std::string> candidates =
        models.empty() ? modelsWithProfile(engine.cluster(), job.perTask.migProfile) : models;
    const std::string model = candidates.empty() ? std::string() : candidates.front();
    r.gpusPerTask = gresTypeOf(model) + "_" + job.perTask.migProfile + ":1";
  } else if (isShare(job.perTask)) {
    r.gres = shareGres(job);
    r.environment = mpsEnvironment(job.perTask);
  }
  if (job.cpusPerTask > 0) r.cpusPerTask = job.cpusPerTask;
  r.workDir = l.workDir;
  r.output = l.output;
  r.error = l.error;
  if (!l.command.empty())
    r.wrap = l.command;
  else
    r.script = l.script;
  return r;
}

// A time-sliced share is one gres/shard: Slurm's shards per GPU are the engine's replicas, so
// both count the same slots (the share's size is the engine's business; time-slicing does not
// enforce it). An MPS share is the gres/mps count that makes Slurm's active-thread percentage
// the engine's. Typed by the job's one model, as whole GPUs are; untyped with exact GPUs (the
// per-device nodes have no model type).
std::string SlurmExecutor::shareGres(const Job& job) const {
  const auto& models = job.model.models;
  const std::string type =
      models.size() == 1 && !config_.exactGpus ? gresTypeOf(models.front()) + ":" : "";
  if (job.perTask.kind == GpuRequest::Kind::Fraction) return "shard:" + type + "1";
  const int count = (job.perTask.mpsThreads * config_.mpsPerGpu + 99) / 100;
  return "mps:" + type + std::to_string(count);
}

JobIntent SlurmExecutor::intentOf(const Engine& engine, const JobRecord& r) const {
  JobIntent i;
  i.job = r.job.id;
  i.run = r.preemptions;
  if (r.state == JobState::Running && r.placement) {
    i.want = JobIntent::Want::Placed;
    i.decidedAt = std::chrono::steady_clock::now();
    const std::string gres = boundGres(r);
    if (!gres.empty()) i.gres = gres;
    for (const TaskAssignment& t : r.placement->tasks) {
      const Node& node = engine.cluster().node(t.node);
      if (std::find(i.nodes.begin(), i.nodes.end(), node.name) == i.nodes.end())
        i.nodes.push_back(node.name);
      if (!gres.empty())
        for (GpuId g : t.gpus) i.gpus[node.name].push_back(static_cast<int>(g - node.firstGpu));
    }
  } else if (!r.active()) {
    i.want = JobIntent::Want::Ended;
  }
  i.submit = submitRequest(engine, r.job);
  if (config_.exactGpus && i.submit && r.job.perTask.kind != GpuRequest::Kind::None &&
      !isShare(r.job.perTask)) {
    i.submitWhenPlaced = true;
    if (i.want == JobIntent::Want::Placed) askForDevices(engine, r, *i.submit);
  }
  return i;
}

// Exact GPUs: the placement's devices as per-device GRES types on each node ("gpu:h100_g2:1,
// gpu:h100_g3:1"; MIG "gpu:a100_3g.40gb_s4:1"). One --gres holds for every node of a job, so a
// gang whose nodes differ asks for untyped whole GPUs instead (Slurm binds them, the engine
// follows) and a MIG gang keeps its profile type.
void SlurmExecutor::askForDevices(const Engine& engine, const JobRecord& r,
                                  slurm::SubmitRequest& req) const {
  const Cluster& c = engine.cluster();
  const bool mig = r.job.perTask.kind == GpuRequest::Kind::Mig;
  std::map<NodeId, std::map<std::string, int>> perNode;
  for (const TaskAssignment& t : r.placement->tasks)
    for (GpuId g : t.gpus) {
      const std::string type = gresTypeOf(c.modelOf(g).id);
      const int index = static_cast<int>(g - c.node(t.node).firstGpu);
      ++perNode[t.node]
               [mig ? type + "_" + r.job.perTask.migProfile + "_s" + std::to_string(t.migStart)
                    : type + "_g" + std::to_string(index)];
    }
  std::optional<std::string> gres;
  for (const auto& [node, types] : perNode) {
    std::string line;
    for (const auto& [type, count] : types)
      line += (line.empty() ? "" : ",") + std::string("gpu:") + type + ":" + std::to_string(count);
    if (gres && *gres != line) {
      if (!mig) req.gpusPerTask = std::to_string(r.job.perTask.gpus);
      return;
    }
    gres = line;
  }
  if (!gres) return;
  req.gres = *gres;
  req.gpusPerTask.clear();
}

// Every node the engine holds out for a reason of its own is drained in Slurm; the executor's
// holds mirror Slurm's drains and are not sent back.
NodeIntents SlurmExecutor::nodeIntents(const Engine& engine) {
  NodeIntents out;
  std::set<std::string> held;
  for (const Node& n : engine.cluster().nodes()) {
    const NodeHolds& holds = engine.nodeHolds(n.id);
    for (const NodeHold& h : holds.all()) {
      if (h.owner == HoldOwner::Executor) {
        held.insert(n.name);
        continue;
      }
      std::string why = h.reason.english();
      if (why.empty()) why = holdOwnerName(h.owner);
      out.out.emplace(n.name, why);
    }
  }
  // A hold gone since the last call: the operator cleared it, or Slurm returned the node (then
  // the driver finds nothing to resume).
  for (const std::string& n : slurmHeld_)
    if (!held.count(n)) out.released.insert(n);
  slurmHeld_ = std::move(held);
  out.reservations = maintenanceWindows(engine);
  refreshMigConfigs(engine);
  out.mig = migConfigs_;
  return out;
}

void SlurmExecutor::refreshMigConfigs(const Engine& engine) {
  const Cluster& c = engine.cluster();
  const bool first = migLayouts_.empty();
  if (first) migLayouts_.resize(c.gpus().size());
  const GresTypeOf typeOf = [this](const std::string& model) { return gresTypeOf(model); };
  for (const Node& n : c.nodes()) {
    bool changed = first;
    for (int i = 0; i < n.gpuCount(); ++i) {
      const GpuId g = n.firstGpu + static_cast<GpuId>(i);
      if (c.gpu(g).sharing.mode != SharingMode::Mig) continue;
      const MigLayout& now = engine.state().gpu(g).layout;
      if (!(migLayouts_[g] == now)) {
        migLayouts_[g] = now;
        changed = true;
      }
    }
    if (!changed) continue;
    MigNodeConfig config = migNodeConfig(engine.state(), n.id, typeOf);
    if (config.signature.empty())
      migConfigs_.erase(n.name);
    else
      migConfigs_[n.name] = std::move(config);
  }
}

// The engine's maintenance reservations, on the nodes they cover whole, as Slurm reservations.
// Team reservations stay the engine's: every job on those GPUs is one Tessera placed anyway,
// and a Slurm reservation would refuse those jobs unless each named it.
std::map<std::string, slurm::ReservationRequest> SlurmExecutor::maintenanceWindows(
    const Engine& engine) const {
  constexpr Seconds kYear = 365 * 86400;
  std::map<std::string, slurm::ReservationRequest> out;
  const Cluster& c = engine.cluster();
  for (const Reservation& r : engine.reservations().all()) {
    if (r.kind != Reservation::Kind::Maintenance) continue;
    slurm::ReservationRequest req;
    req.name = "tessera-" + instance_ + "-" + slurmName(r.id);
    const std::set<GpuId> gpus(r.gpus.begin(), r.gpus.end());
    for (const Node& n : c.nodes()) {
      bool whole = n.gpuCount() > 0;
      for (int i = 0; i < n.gpuCount() && whole; ++i)
        whole = gpus.count(n.firstGpu + static_cast<GpuId>(i)) > 0;
      if (whole) req.nodes.push_back(n.name);
    }
    if (req.nodes.empty()) continue;
    req.startTime = r.from;
    const Seconds length = r.until >= kForever ? kYear : r.until - r.from;
    req.durationMinutes = static_cast<int>(std::max<Seconds>(1, (length + 59) / 60));
    req.maintenance = true;
    out.emplace(req.name, std::move(req));
  }
  return out;
}

void SlurmExecutor::carryOut(const Engine& engine) {
  std::vector<JobIntent> intents;
  // Events forgotten before this saw them (or a reloaded engine's new log): start over from
  // the active jobs, as after a restart.
  if (resync_ || eventCursor_ > engine.eventCount() || eventCursor_ < engine.firstEvent()) {
    for (const JobRecord* r : engine.jobs())
      if (r->active()) intents.push_back(intentOf(engine, *r));
    resync_ = false;
  } else {
    std::set<JobId> touched;
    for (uint64_t i = eventCursor_; i < engine.eventCount(); ++i)
      if (const Event* e = engine.eventAt(i); e->job != kNoJob && e->kind != EventKind::Command)
        touched.insert(e->job);
    for (JobId id : touched) {
      if (const JobRecord* r = engine.job(id))
        intents.push_back(intentOf(engine, *r));
      else {
        JobIntent gone;
        gone.job = id;
        gone.want = JobIntent::Want::Ended;
        intents.push_back(std::move(gone));
      }
    }
  }
  eventCursor_ = engine.eventCount();
  if (modelOfType_.empty())
    for (const Node& n : engine.cluster().nodes())
      modelOfType_.emplace(gresTypeOf(n.gpuModel().id), n.gpuModel().id);
  NodeIntents nodes = nodeIntents(engine);
  {
    std::lock_guard lock(mutex_);
    for (JobIntent& i : intents) inbox_.push_back(std::move(i));
    // The latest holds win; releases add up until the worker takes them.
    if (nodeInbox_) nodes.released.insert(nodeInbox_->released.begin(), nodeInbox_->released.end());
    nodeInbox_ = std::move(nodes);
  }
  if (!intents.empty()) wake_.notify_one();
}

void SlurmExecutor::setWake(std::function<void()> wake) {
  std::lock_guard lock(mutex_);
  hostWake_ = std::move(wake);
}

void SlurmExecutor::resync(const std::string& instance) {
  resync_ = true;
  std::lock_guard lock(mutex_);
  instance_ = instance;
  instanceInbox_ = instance;
}

void SlurmExecutor::adopted(int64_t externalId, JobId job) {
  {
    std::lock_guard lock(mutex_);
    answers_.emplace_back(externalId, job);
  }
  wake_.notify_one();
}

void SlurmExecutor::refused(int64_t externalId, const std::string& why) {
  {
    std::lock_guard lock(mutex_);
    refusals_[externalId] = why;
  }
  wake_.notify_one();
}

Observations SlurmExecutor::observe(const Engine& engine) {
  Observations seen;
  std::vector<SlurmOffer> offers;
  {
    std::lock_guard lock(mutex_);
    std::swap(seen, outbox_);
    std::swap(offers, offers_);
  }
  for (const SlurmOffer& offer : offers) seen.offers.push_back(translate(engine, offer));
  return seen;
}

// An offer as the engine's job: team by the Slurm user (then account) mapping, else the default
// team; the lowest priority class unless configured; one task per Slurm node with its GPUs per
// node as whole GPUs of the model its GRES type names, or one instance of a MIG type's profile.
observed::Offer SlurmExecutor::translate(const Engine& engine, const SlurmOffer& offer) const {
  observed::Offer out;
  out.externalId = offer.slurmId;
  Job& job = out.job;
  job.name = offer.name;
  const auto mapped = [&](const std::string& key) {
    const auto it = config_.userTeams.find(key);
    return it == config_.userTeams.end() ? std::string() : it->second;
  };
  job.team = mapped(offer.user);
  if (job.team.empty()) job.team = mapped(offer.account);
  if (job.team.empty()) job.team = config_.defaultTeam;
  if (job.team.empty()) {
    out.refusal = "no team for Slurm user " + offer.user + " or account " + offer.account +
                  " (executor.slurm.user_teams, default_team)";
    return out;
  }
  job.priorityClass = config_.adoptedClass;
  if (job.priorityClass.empty()) {
    const auto& classes = engine.priorityClasses();
    const auto lowest = std::min_element(classes.begin(), classes.end(),
                                         [](auto& a, auto& b) { return a.value < b.value; });
    if (lowest != classes.end()) job.priorityClass = lowest->name;
  }
  // A user's share names no fraction or MPS limits the engine could place it by (an MPS client
  // needs its pinned memory): submitted through Tessera it gets them.
  if (!offer.sharedGres.empty()) {
    out.refusal = "asks for gres " + offer.sharedGres +
                  ": Tessera takes in whole-GPU and MIG jobs only; submit shared-GPU jobs "
                  "through Tessera (a fraction or an MPS share)";
    return out;
  }
  job.tasks = offer.nodes;
  if (offer.gpusPerNode > 0) {
    job.perTask.kind = GpuRequest::Kind::Whole;
    job.perTask.gpus = offer.gpusPerNode;
  }
  if (!offer.gpuType.empty()) {
    const auto split = offer.gpuType.find('_');
    const std::string type = offer.gpuType.substr(0, split);
    const auto model = modelOfType_.find(type);
    if (model == modelOfType_.end()) {
      out.refusal = "Slurm GPU type " + offer.gpuType + " is no GPU model of this cluster";
      return out;
    }
    job.model.models = {model->second};
    if (split != std::string::npos) {
      job.perTask.kind = GpuRequest::Kind::Mig;
      job.perTask.gpus = 0;
      job.perTask.migProfile = offer.gpuType.substr(split + 1);
    }
  }
  if (offer.timeLimitMinutes > 0) {
    job.estimatedRuntime = Seconds{offer.timeLimitMinutes} * 60;
    job.launch.timeLimitMinutes = offer.timeLimitMinutes;
  }
  job.launch.account = offer.account;
  job.launch.partition = offer.partition;
  takeRunning(offer, out);
  return out;
}

// Where an offered job already runs: its GPU indices on each node, as Slurm bound them. Slurm
// numbers a node's GPUs in gres.conf order, which is the devices' order when whole GPUs are
// listed first (as AutoDetect=nvml does); a MIG instance's index does not name its GPU, so a
// running MIG job is refused (it stays where it is, outside the engine; docs/slurm.md).
void SlurmExecutor::takeRunning(const SlurmOffer& offer, observed::Offer& out) const {
  if (offer.running.empty() || !out.refusal.empty()) return;
  if (out.job.perTask.kind == GpuRequest::Kind::Mig) {
    out.refusal = "runs outside Tessera on a MIG instance (" + offer.gpuType +
                  "): Tessera cannot tell which one";
    return;
  }
  for (const slurm::NodeGres& n : offer.running) {
    observed::Offer::RunningTask task{n.node, {}};
    for (const slurm::GresUse& use : n.gres)
      if (use.gres.name == "gpu")
        task.gpus.insert(task.gpus.end(), use.indices.begin(), use.indices.end());
    out.running.push_back(std::move(task));
  }
  out.started = offer.startTime;
}

void SlurmExecutor::run() {
  using Clock = std::chrono::steady_clock;
  const auto interval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(config_.pollSeconds));
  const auto idleInterval = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(config_.idlePollSeconds));
  Clock::time_point nextPoll = Clock::now();
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    std::vector<JobIntent> intents;
    std::swap(intents, inbox_);
    std::optional<NodeIntents> nodes;
    std::swap(nodes, nodeInbox_);
    auto answers = std::move(answers_);
    answers_.clear();
    auto refusals = std::move(refusals_);
    refusals_.clear();
    std::optional<std::string> instance;
    std::swap(instance, instanceInbox_);
    lock.unlock();
    if (instance) driver_.setInstance(*instance);
    for (JobIntent& i : intents) driver_.want(std::move(i));
    if (nodes) driver_.wantNodes(std::move(*nodes));
    for (const auto& [id, job] : answers) driver_.adopted(id, *job);
    for (const auto& [id, why] : refusals) driver_.refused(id, why);
    // Woken by fresh decisions within an interval of the last poll: they are carried out on that
    // poll's view (a poll of a busy cluster takes seconds); adoptions need a full poll (their
    // tags).
    const auto now = static_cast<Seconds>(std::time(nullptr));
    const bool full = !answers.empty() || !refusals.empty() || instance.has_value();
    const bool poll = full || Clock::now() >= nextPoll;
    StepReport report = full ? driver_.step(now) : poll ? driver_.poll(now) : driver_.act(now);
    if (poll)
      nextPoll = Clock::now() + (driver_.idle() && config_.idlePollSeconds > config_.pollSeconds
                                     ? idleInterval
                                     : interval);
    if (report.again) nextPoll = Clock::now();
    Observations& seen = report.seen;
    lock.lock();
    status_ = driver_.status();
    external_ = driver_.seen();
    auto append = [](auto& to, auto& from) {
      to.insert(to.end(), std::make_move_iterator(from.begin()),
                std::make_move_iterator(from.end()));
    };
    append(outbox_.ended, seen.ended);
    append(outbox_.bounced, seen.bounced);
    append(outbox_.gone, seen.gone);
    append(offers_, report.offers);
    append(outbox_.nodes, seen.nodes);
    append(outbox_.bound, seen.bound);
    // News for the engine: a cycle now, as Slurm's own scheduler would react to a job's end.
    if (hostWake_ && (!outbox_.empty() || !offers_.empty())) hostWake_();
    if (config_.onStartLatency)
      for (double s : report.startSeconds) config_.onStartLatency(s);
    wake_.wait_until(lock, nextPoll, [this] {
      return stopping_ || !inbox_.empty() || !answers_.empty() || !refusals_.empty();
    });
  }
}

}  // namespace tessera
