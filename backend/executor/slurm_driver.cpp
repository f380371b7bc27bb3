#include "executor/slurm_driver.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "core/engine_text.h"

namespace tessera {
namespace {

using slurm::SlurmJob;

// A requeued job released again at once can land on its old node while that run's step is still
// being torn down: slurmd then kills it ("Job credential revoked", exit 1). Verified on 22.05.
constexpr Seconds kRequeueSettle = 3;

// Released jobs keep this priority: above a held job's 0 and far below priority/basic's
// ~4.29e9 default, which would otherwise let Slurm's own order (not Tessera's) decide ties.
constexpr int64_t kReleasedPriority = 1000000;

// A job Slurm lost before it ever ran (slurmctld restarted inside its state-save window) is
// submitted again this many times at most; past that something else is wrong.
constexpr int kMaxResubmits = 3;

// sbatch calls per step: a burst of a thousand submits would otherwise hold up, for a minute,
// the placements of jobs the engine has already started (they go first; the rest follow in the
// next steps, which come at once).
constexpr int kSubmitsPerStep = 32;

bool running(const SlurmJob& s) {
  return s.state == slurm::JobState::Running || s.state == slurm::JobState::Suspended ||
         s.state == slurm::JobState::Completing;
}

// The engine's words for how a Slurm job ended: "Slurm: COMPLETED", "Slurm: FAILED, exit code
// 3", "Slurm: TIMEOUT (TimeLimit)".
std::string endReason(const SlurmJob& s) {
  std::string out = "Slurm: " + s.stateText;
  if (s.exit.signal != 0)
    out += ", signal " + std::to_string(s.exit.signal);
  else if (s.exit.code != 0)
    out += ", exit code " + std::to_string(s.exit.code);
  if (!s.stateReason.empty() && s.stateReason != "None") out += " (" + s.stateReason + ")";
  return out;
}

// Of the jobs carrying one tag: a live one (running before pending), else the newest.
const SlurmJob* pick(const std::vector<const SlurmJob*>& jobs) {
  const SlurmJob* best = nullptr;
  auto rank = [](const SlurmJob& s) {
    if (running(s)) return 3;
    if (s.state == slurm::JobState::Pending) return 2;
    return 1;
  };
  for (const SlurmJob* s : jobs)
    if (!best || rank(*s) > rank(*best) || (rank(*s) == rank(*best) && s->id > best->id)) best = s;
  return best;
}

// Whether the held Slurm job asks for the devices the request names (the same GRES per node, any
// order). A request that names no device (per task, untyped) suits every placement.
bool sameGpuRequest(const SlurmJob& s, const slurm::SubmitRequest& r) {
  if (r.gres.empty()) return true;
  auto wanted = slurm::parseGresList(r.gres);
  if (!wanted) return false;
  auto key = [](const slurm::GresCount& g) { return std::tie(g.name, g.type, g.count); };
  auto byKey = [&](const auto& a, const auto& b) { return key(a) < key(b); };
  std::vector<slurm::GresCount> have = s.gresPerNode;
  std::sort(wanted->begin(), wanted->end(), byKey);
  std::sort(have.begin(), have.end(), byKey);
  return *wanted == have;
}

}  // namespace

SlurmDriver::SlurmDriver(slurm::SlurmClient& client, SlurmDriverConfig config)
    : client_(client), config_(config) {}

void SlurmDriver::want(JobIntent intent) {
  Tracked& t = tracked_[intent.job];
  // A job the engine re-places after a preemption starts a new requeue later.
  if (intent.want != JobIntent::Want::Held) {
    t.signalled = false;
    t.requeueAt = 0;
  }
  dirty_.insert(intent.job);
  if (!intent.submit && t.intent.submit) intent.submit = std::move(t.intent.submit);
  // The same placement told again (another event of a running job): still decided back then.
  if (intent.want == JobIntent::Want::Placed && t.intent.want == JobIntent::Want::Placed &&
      intent.run == t.intent.run && t.intent.decidedAt != std::chrono::steady_clock::time_point{})
    intent.decidedAt = t.intent.decidedAt;
  t.intent = std::move(intent);
}

void SlurmDriver::wantNodes(NodeIntents nodes) {
  // A hold this driver returned is no operator's clearing: a node Slurm drains again meanwhile
  // must not be resumed for it.
  for (const std::string& n : nodes.released)
    if (!returned_.erase(n)) released_.insert(n);
  // What Slurm has at start is what the engine started with (the cluster was imported from it).
  for (const auto& [node, config] : nodes.mig) migApplied_.emplace(node, config.signature);
  nodes_ = std::move(nodes);
}

void SlurmDriver::adopted(int64_t slurmId, JobId job) {
  tags_[slurmId] = std::string(slurm::kTesseraTag) + tagOf(job);
  Tracked& t = tracked_[job];
  t.slurmId = slurmId;
  t.intent.job = job;
  // One taken in running is already placed where it runs: until the engine's intent arrives it
  // must not be taken for a pending job (and requeued).
  for (const SlurmJob& s : jobs_.jobs)
    if (s.id == slurmId && running(s) && t.intent.want == JobIntent::Want::Held) {
      t.intent.want = JobIntent::Want::Placed;
      t.intent.nodes = s.nodes;
      t.releasedRun = t.intent.run;
      t.startTimed = true;
    }
}

void SlurmDriver::refused(int64_t slurmId, const std::string& why) {
  tags_[slurmId] = "tessera-refused: " + why;
}

void SlurmDriver::failed(const std::string& what, const Error& e) {
  status_.detail = what + ": " + e.str();
}

bool SlurmDriver::idle() const {
  if (!tracked_.empty() || !tags_.empty() || !dirty_.empty() || !nodes_.reservations.empty() ||
      !reservationsDone_.empty() || !migWork_.empty() || status_.state != ExecutorState::Ready)
    return false;
  return std::all_of(jobs_.jobs.begin(), jobs_.jobs.end(),
                     [](const SlurmJob& s) { return slurm::isFinished(s.state); });
}

std::optional<ExternalJob> SlurmDriver::job(JobId id) const {
  const auto it = seenJobs_.find(id);
  if (it == seenJobs_.end()) return std::nullopt;
  return it->second;
}

// By its tag; else by the id Slurm gave it, while the tag an adoption sets is not visible yet.
const SlurmJob* SlurmDriver::current(const Tracked& t) const {
  const auto it = byTag_.find(tagOf(t.intent.job));
  if (it != byTag_.end()) return pick(it->second);
  if (t.slurmId == 0) return nullptr;
  for (const SlurmJob& s : jobs_.jobs)
    if (s.id == t.slurmId && !s.tesseraId) return &s;
  return nullptr;
}

void SlurmDriver::unavailable(const Error& e) {
  status_.state = ExecutorState::Unavailable;
  status_.detail = e.str();
}

StepReport SlurmDriver::step(Seconds now) {
  StepReport report;
  auto jobs = client_.jobs();
  auto nodes = jobs ? client_.nodes() : Expected<slurm::NodesDocument>(jobs.error());
  if (!jobs || !nodes) {
    unavailable(jobs ? nodes.error() : jobs.error());
    return report;
  }
  status_.state = ExecutorState::Ready;
  status_.detail.clear();
  jobs_ = std::move(*jobs);
  lastFull_ = now;
  slurmNodes_ = std::move(*nodes);
  byTag_.clear();
  for (const SlurmJob& s : jobs_.jobs)
    if (s.tesseraId) byTag_[*s.tesseraId].push_back(&s);
  // Tags first: an adopted job then reconciles as the engine's own in this same step.
  for (auto it = tags_.begin(); it != tags_.end();) {
    if (const Status st = client_.setComment(it->first, it->second); !st) {
      failed("tagging Slurm job " + std::to_string(it->first), st.error());
      ++it;
    } else {
      it = tags_.erase(it);
    }
  }
  cancelDuplicates();
  reconcileAll(now, report);
  return report;
}

StepReport SlurmDriver::poll(Seconds now) {
  // Tags to set and duplicates to cancel need the full view; so does anything after an outage.
  // Idle, nothing is tracked whose details could drift, and the light listing shows every
  // change that matters (a new job, one gone): the full one - thousands of finished jobs for
  // MinJobAge - is read only then, not every fullPollSeconds.
  const bool due = !idle() && now - lastFull_ >= config_.fullPollSeconds;
  if (glanceUnreadable_ || status_.state != ExecutorState::Ready || !tags_.empty() || due)
    return step(now);
  auto glances = client_.jobGlances();
  if (!glances) {
    // A line it cannot read is a format this parser does not know (a newer Slurm): full polls
    // from now on. Anything else is Slurm not answering.
    if (glances.error().where.line == 0) {
      unavailable(glances.error());
      return {};
    }
    glanceUnreadable_ = true;
    return step(now);
  }
  if (!takeGlance(*glances)) return step(now);
  auto nodes = client_.nodes();
  if (!nodes) {
    unavailable(nodes.error());
    return {};
  }
  status_.detail.clear();
  slurmNodes_ = std::move(*nodes);
  StepReport report;
  reconcileAll(now, report);
  return report;
}

// The light listing taken into the last full view, where it can be: Tessera's jobs moving along
// the usual path (held, released, running, completed). Anything else needs the full poll: a job
// new or gone, an untagged job changing (an offer needs its details), an end other than
// COMPLETED (its exit code), a requeue (its restart count). A running job's GPUs (gres_detail)
// are only in the full view: they are compared with the engine's at the next one.
bool SlurmDriver::takeGlance(const std::vector<slurm::JobGlance>& glances) {
  using slurm::JobState;
  if (glances.size() != jobs_.jobs.size()) return false;
  std::unordered_map<int64_t, SlurmJob*> byId;
  byId.reserve(jobs_.jobs.size());
  for (SlurmJob& s : jobs_.jobs) byId.emplace(s.id, &s);
  auto ordinary = [](JobState from, JobState to) {
    switch (to) {
      case JobState::Pending:
        return from == JobState::Pending;
      case JobState::Running:
        return from == JobState::Pending || from == JobState::Running;
      case JobState::Completing:
      case JobState::Completed:
        return from == JobState::Pending || from == JobState::Running ||
               from == JobState::Completing || from == to;
      default:
        return false;
    }
  };
  std::vector<std::pair<SlurmJob*, const slurm::JobGlance*>> changed;
  for (const slurm::JobGlance& g : glances) {
    const auto it = byId.find(g.id);
    if (it == byId.end()) return false;
    const SlurmJob& s = *it->second;
    // A job requeued held reads "JobHeldUser" in JSON, "job requeued in held state" here.
    const bool sameReason =
        g.reason == s.stateReason || (s.held && slurm::isHeld(g.priority, g.reason));
    if (g.stateText == s.stateText && sameReason && g.priority == s.priority && g.nodes == s.nodes)
      continue;
    if (!s.tesseraId || !ordinary(s.state, g.state)) return false;
    changed.emplace_back(it->second, &g);
  }
  for (auto [s, g] : changed) {
    s->state = g->state;
    s->stateText = g->stateText;
    s->stateReason = g->reason;
    s->priority = g->priority;
    s->held = slurm::isHeld(g->priority, g->reason);
    if (s->nodes != g->nodes || !running(*s)) s->gresDetail.clear();
    s->nodes = g->nodes;
  }
  return true;
}

void SlurmDriver::reconcileAll(Seconds now, StepReport& report) {
  Observations& seen = report.seen;
  again_ = false;
  seenJobs_.clear();
  std::vector<JobId> all;
  all.reserve(tracked_.size());
  for (const auto& [id, t] : tracked_) all.push_back(id);
  reconcileJobs(all, now, seen);
  if (config_.adopt) offerAdoptions(report.offers);
  // Nodes first: one whose repartition ends in this step is resumed once, by reconcileMig.
  reconcileNodes(seen);
  reconcileMig(seen);
  released_.clear();  // those Slurm no longer held need nothing
  reconcileReservations(now);
  if (status_.detail.empty()) status_.lastSync = now;
  report.startSeconds = std::move(startSeconds_);
  startSeconds_.clear();
  report.again = again_;
}

// After a controller crash, or a tesserad killed between sbatch and its record, one tag can
// name several live jobs: the one Tessera tracks (else the furthest along) stays.
void SlurmDriver::cancelDuplicates() {
  for (const auto& [tag, jobs] : byTag_) {
    if (jobs.size() < 2) continue;
    const SlurmJob* keep = pick(jobs);
    for (const SlurmJob* s : jobs)
      if (s != keep && !slurm::isFinished(s->state))
        if (const Status st = client_.cancel(s->id); !st)
          failed("cancelling duplicate Slurm job " + std::to_string(s->id), st.error());
  }
}

void SlurmDriver::reconcile(JobId id, Tracked& t, Seconds now, Observations& seen, bool& done) {
  const SlurmJob* s = current(t);
  if (s && s->id == t.replaced) s = nullptr;  // the new one is not visible yet
  if (s) {
    t.slurmId = s->id;
    seenJobs_[id] = {std::to_string(s->id), s->stateText, s->stateReason, s->nodes};
  }
  using Want = JobIntent::Want;
  if (t.intent.want == Want::Ended) {
    if (s && !slurm::isFinished(s->state)) {
      if (const Status st = client_.cancel(s->id); !st)
        return failed("cancelling Slurm job " + std::to_string(s->id), st.error());
    }
    done = true;
    return;
  }
  if (!s) {
    if (t.intent.submit && t.slurmId == 0) return submit(id, t);
    if (stale_) return;          // submitted after the view was taken: the next poll shows it
    if (t.slurmId == 0) return;  // adopted, tag not visible yet
    if (lostBeforeRunning(t)) {
      ++t.lostRuns;
      t.slurmId = 0;
      return submit(id, t);
    }
    // Its Slurm job is gone (purged, or cancelled before anyone saw it end).
    seen.gone.push_back({id, literal("Slurm: job " + std::to_string(t.slurmId) + " is gone")});
    done = true;
    return;
  }
  if (slurm::isFinished(s->state)) {
    const bool ok = s->state == slurm::JobState::Completed;
    if (t.intent.want == Want::Placed)
      seen.ended.push_back({id, ok, literal(endReason(*s))});
    else
      seen.gone.push_back({id, literal(endReason(*s))});
    done = true;
    return;
  }
  if (t.intent.want == Want::Placed)
    place(t, *s, now, seen);
  else
    keepHeld(t, *s, now);
}

// What the engine just decided, carried out on the last poll's view of Slurm without polling
// again - a poll of a thousand jobs takes seconds, so a freed GPU is given out a poll sooner. Only
// the jobs whose intent changed since the last step are touched; the rest waits for the next one.
StepReport SlurmDriver::act(Seconds now) {
  StepReport report;
  again_ = false;
  if (status_.state != ExecutorState::Ready) return report;  // no view to act on
  std::vector<JobId> changed(dirty_.begin(), dirty_.end());
  stale_ = true;
  reconcileJobs(changed, now, report.seen);
  stale_ = false;
  report.startSeconds = std::move(startSeconds_);
  startSeconds_.clear();
  report.again = again_;
  return report;
}

// Placed jobs first: their Slurm jobs are submitted (and placed) before those that wait.
void SlurmDriver::reconcileJobs(const std::vector<JobId>& ids, Seconds now, Observations& seen) {
  submitBudget_ = kSubmitsPerStep;
  dirty_.clear();
  std::vector<JobId> order;
  order.reserve(ids.size());
  for (const bool placedPass : {true, false})
    for (JobId id : ids)
      if (const auto it = tracked_.find(id);
          it != tracked_.end() && (it->second.intent.want == JobIntent::Want::Placed) == placedPass)
        order.push_back(id);
  for (JobId id : order) {
    bool done = false;
    reconcile(id, tracked_.at(id), now, seen, done);
    if (done) tracked_.erase(id);
  }
}

void SlurmDriver::submit(JobId id, Tracked& t) {
  // Placed as soon as a poll shows it held, and the rest submitted: the next step comes at once
  // (not after a failure: that waits for the interval).
  if (t.intent.submitWhenPlaced && t.intent.want != JobIntent::Want::Placed) return;
  if (submitBudget_ <= 0) {
    again_ = true;
    return;
  }
  --submitBudget_;
  auto submitted = client_.submitHeld(*t.intent.submit);
  if (!submitted) return failed("submitting job " + std::to_string(id), submitted.error());
  again_ = true;
  t.slurmId = *submitted;
  t.submittedHere = true;
  t.releasedRun = -1;
}

// Slurm has no record of the job under its tag, yet it never ran: slurmctld restarted before
// saving it (state is saved every few seconds), so it is submitted again rather than given up.
// A job that may have run (released once, or found placed after a tesserad restart: it may have
// ended and been purged meanwhile) is not: running it twice is worse than reporting it gone.
bool SlurmDriver::lostBeforeRunning(const Tracked& t) const {
  if (!t.intent.submit || t.lostRuns >= kMaxResubmits) return false;
  if (t.intent.want == JobIntent::Want::Held) return t.releasedRun < 0;
  return t.submittedHere && t.releasedRun == -1;
}

// Pinned to the engine's nodes and released: RUNNING about a second later. A pin Slurm cannot
// honour is accepted by scontrol and shows only after release, as BadConstraints: checked here
// against sinfo first, and watched for after.
void SlurmDriver::place(Tracked& t, const SlurmJob& s, Seconds now, Observations& seen) {
  const std::string id = std::to_string(s.id);
  if (running(s)) {
    if (t.releasedRun < 0) {  // found running (after a restart): its start was not ours to time
      if (stale_) return;     // or requeued since the view was taken
      t.releasedRun = t.intent.run;
      t.startTimed = true;
    }
    if (t.releasedRun != t.intent.run) return requeue(t, s, now);  // the run before a preemption
    t.releasedAt = 0;
    t.leftPendingOn.clear();  // it ran: a later refusal is news, not the same one again
    compareBinding(t, s, seen);
    if (!t.startTimed && t.intent.decidedAt != std::chrono::steady_clock::time_point{}) {
      startSeconds_.push_back(
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t.intent.decidedAt)
              .count());
    }
    t.startTimed = true;
    return;
  }
  if (!s.held) {
    if (s.stateReason == "BadConstraints") {
      (void)client_.hold(s.id);
      seen.bounced.push_back(
          {t.intent.job, literal("Slurm refused the placement on " + s.stateReason)});
      t.intent.want = JobIntent::Want::Held;
    } else if (s.stateReason == "BeginTime") {
      (void)client_.startNow(s.id);  // a requeued job waits 121 s otherwise
    } else {
      leftPending(t, s, now, seen);
    }
    return;
  }
  if (t.requeuedAt > 0 && now - t.requeuedAt < kRequeueSettle) return;
  // Released since the view was taken: the next poll shows it.
  if (stale_ && t.releasedRun == t.intent.run) return;
  if (t.intent.submitWhenPlaced && t.intent.submit && !sameGpuRequest(s, *t.intent.submit))
    return replace(t, s);
  if (const auto unfit = unfitPin(t, s)) {
    seen.bounced.push_back({t.intent.job, literal(*unfit)});
    t.intent.want = JobIntent::Want::Held;
    return;
  }
  if (const Status st = client_.pin(s.id, t.intent.nodes); !st)
    return failed("pinning Slurm job " + id, st.error());
  if (s.restartCount > 0 || s.stateReason == "BeginTime") (void)client_.startNow(s.id);
  if (const Status st = client_.release(s.id); !st)
    return failed("releasing Slurm job " + id, st.error());
  t.releasedRun = t.intent.run;
  t.releasedAt = now;
  t.startTimed = false;
  (void)client_.setPriority(s.id, kReleasedPriority);
}

// Released, yet Slurm still does not run it past releaseSettle (it runs a job it can about a
// second after release): Slurm's view of the node differs from the engine's - for an MPS share,
// gres/mps's one_sharing where the spec says node_sharing: all; a user's job started outside
// Tessera; another CPU or memory count. The engine counts it running, so it is held again and
// bounced back to the queue. A second such bounce from the same nodes holds it there too: the
// engine, whose view has not changed, would put it back where Slurm does not run it, forever.
void SlurmDriver::leftPending(Tracked& t, const SlurmJob& s, Seconds now, Observations& seen) {
  if (stale_ || s.state != slurm::JobState::Pending) return;
  if (t.releasedAt == 0) t.releasedAt = now;  // released before this process saw it
  if (now - t.releasedAt < config_.releaseSettle) return;
  std::string nodes;
  for (const std::string& n : t.intent.nodes) nodes += (nodes.empty() ? "" : ",") + n;
  const bool again = t.leftPendingOn == nodes;
  std::string why = "Slurm left job " + std::to_string(s.id) + " pending (" +
                    (s.stateReason.empty() ? std::string("no reason") : s.stateReason) + ") " +
                    std::to_string(now - t.releasedAt) + " s after its release on " + nodes +
                    ": Slurm does not run it where the engine placed it (for an MPS share, "
                    "gres/mps's one_sharing: the cluster spec's node_sharing)";
  why += again ? "; refused there before, so held: release it once Slurm and the spec agree"
               : "; back to the queue";
  (void)client_.hold(s.id);
  seen.bounced.push_back({t.intent.job, literal(why), again});
  t.intent.want = JobIntent::Want::Held;
  t.releasedAt = 0;
  t.leftPendingOn = nodes;
}

// Made for an earlier placement (exact GPUs): the GPU request cannot change, so the Slurm job
// is cancelled and another one submitted for this placement (same tag).
void SlurmDriver::replace(Tracked& t, const SlurmJob& s) {
  if (const Status st = client_.cancel(s.id); !st)
    return failed("cancelling Slurm job " + std::to_string(s.id) + " to place it anew", st.error());
  t.replaced = s.id;
  t.slurmId = 0;
  submit(t.intent.job, t);
}

// Slurm binds whole GPUs of the type by its own choice among a node's free ones, and a share's
// shard or an MPS client's mps to the lowest GPU with room - for mps, by 22.05's default, the
// GPU already serving clients if there is one ("shard:1(IDX:1)", "mps:25(IDX:0)": the index is
// the GPU's). Where that differs from the engine's GPUs it is reported (once per binding), so
// the engine's map - what telemetry, GPU faults and the heatmap go by - is the cluster's.
void SlurmDriver::compareBinding(Tracked& t, const SlurmJob& s, Observations& seen) {
  if (t.intent.gpus.empty() || s.gresDetail.empty()) return;
  observed::JobBound bound{t.intent.job, {}};
  std::string signature;
  bool differs = false;
  for (const slurm::NodeGres& n : s.gresDetail) {
    std::vector<int> slurms;
    for (const slurm::GresUse& u : n.gres)
      if (u.gres.name == t.intent.gres)
        slurms.insert(slurms.end(), u.indices.begin(), u.indices.end());
    std::sort(slurms.begin(), slurms.end());
    const auto wanted = t.intent.gpus.find(n.node);
    if (wanted == t.intent.gpus.end()) return;  // not a node the engine chose: nothing to map
    std::vector<int> mine = wanted->second;
    std::sort(mine.begin(), mine.end());
    if (mine.size() != slurms.size()) return;  // another shape (not yet shown): not comparable
    differs = differs || mine != slurms;
    signature += n.node + ":";
    for (int i : slurms) signature += std::to_string(i) + ",";
    bound.gpus.emplace_back(n.node, std::move(slurms));
  }
  if (!differs || signature == t.boundReported) return;
  t.boundReported = signature;
  seen.bound.push_back(std::move(bound));
}

// Why Slurm could not run the job on the pinned nodes, judged from the last sinfo: a node it
// does not know, one it drained or lost, or fewer GPUs of the job's type than it asks per node.
std::optional<std::string> SlurmDriver::unfitPin(const Tracked& t, const SlurmJob& s) const {
  for (const std::string& name : t.intent.nodes) {
    const auto n = std::find_if(slurmNodes_.nodes.begin(), slurmNodes_.nodes.end(),
                                [&](const slurm::SlurmNode& x) { return x.name == name; });
    if (n == slurmNodes_.nodes.end()) return "Slurm has no node " + name;
    if (n->hasFlag("DRAIN") || n->state == slurm::NodeState::Down)
      return "Slurm has node " + name + " " + n->stateText +
             (n->hasFlag("DRAIN") ? " (drained: " + n->reason + ")" : "");
    for (const slurm::GresCount& want : s.gresPerNode) {
      int have = 0;
      for (const slurm::GresCount& g : n->gres)
        if (g.name == want.name && (want.type.empty() || g.type == want.type)) have += g.count;
      if (have >= want.count) continue;
      const std::string gres = want.name + (want.type.empty() ? "" : ":" + want.type);
      // A share on a node without shard or mps GRES: its gres.conf would have to change.
      if (have == 0 && want.name != "gpu")
        return "Slurm's node " + name + " has no gres/" + gres + " configured: the job's " +
               want.name + " request can never run there";
      return "Slurm's node " + name + " has " + std::to_string(have) + " " + gres +
             ", the job asks " + std::to_string(want.count);
    }
  }
  return std::nullopt;
}

// Pending in the engine: held in Slurm. A running job was preempted: the checkpoint signal,
// the grace period, then requeued held (to be pinned and released again when re-placed).
void SlurmDriver::keepHeld(Tracked& t, const SlurmJob& s, Seconds now) {
  const std::string id = std::to_string(s.id);
  if (running(s)) return requeue(t, s, now);
  if (!s.held)
    if (const Status st = client_.hold(s.id); !st) failed("holding Slurm job " + id, st.error());
}

// The checkpoint signal, the grace period, then back to pending and held in Slurm.
void SlurmDriver::requeue(Tracked& t, const SlurmJob& s, Seconds now) {
  if (config_.preemptGrace > 0 && !t.signalled) {
    (void)client_.signal(s.id, config_.preemptSignal);
    t.signalled = true;
    t.requeueAt = now + config_.preemptGrace;
  }
  if (now < t.requeueAt) return;
  if (const Status st = client_.requeueHold(s.id); !st)
    return failed("requeueing Slurm job " + std::to_string(s.id), st.error());
  t.signalled = false;
  t.releasedRun = -2;  // requeued: no run of it is out in Slurm
  t.requeuedAt = now;
}

// Jobs users sbatch'ed, held by Tessera's gate: offered to the engine once each.
void SlurmDriver::offerAdoptions(std::vector<SlurmOffer>& offers) {
  // Offered once: answered or not, until Slurm forgets the job (its tag may show only in the
  // poll after the one the answer came with).
  std::set<int64_t> present, tracked;
  for (const SlurmJob& s : jobs_.jobs) present.insert(s.id);
  for (const auto& [id, t] : tracked_) tracked.insert(t.slurmId);
  std::erase_if(offered_, [&](int64_t id) { return !present.count(id); });
  for (const SlurmJob& s : jobs_.jobs) {
    // Held by the gate, or running already: started before the gate was installed, or
    // released behind Tessera's back (its GPUs are taken either way).
    const bool waiting = s.state == slurm::JobState::Pending && s.held;
    if (s.tesseraId || !(waiting || running(s))) continue;
    if (s.comment.rfind("tessera", 0) == 0) continue;  // refused before
    if (offered_.count(s.id) || tags_.count(s.id) || tracked.count(s.id)) continue;
    offered_.insert(s.id);
    SlurmOffer offer;
    offer.slurmId = s.id;
    offer.name = s.name;
    offer.user = s.user;
    offer.account = s.account;
    offer.partition = s.partition;
    offer.nodes = std::max(1, s.nodeCount);
    offer.timeLimitMinutes = static_cast<int>(s.timeLimitMinutes);
    for (const slurm::GresCount& g : s.gresPerNode)
      if (g.name == "gpu") {
        offer.gpusPerNode += g.count;
        offer.gpuType = g.type;
      } else if (g.name == "shard" || g.name == "mps") {
        offer.sharedGres =
            g.name + (g.type.empty() ? "" : ":" + g.type) + ":" + std::to_string(g.count);
      }
    if (running(s)) {
      offer.running = s.gresDetail;
      offer.startTime = s.startTime;
    }
    offers.push_back(std::move(offer));
  }
}

// Slurm's own drains and downs become the executor's holds in the engine; the engine's holds
// become Slurm drains with a "tessera: " reason, resumed when the engine lets the node go.
void SlurmDriver::reconcileNodes(Observations& seen) {
  static const std::string kPrefix = "tessera: ";
  for (const slurm::SlurmNode& n : slurmNodes_.nodes) {
    if (migPending(n.name)) continue;  // drained for its MIG repartition (reconcileMig)
    const bool drained = n.hasFlag("DRAIN");
    const bool ours = drained && n.reason.rfind(kPrefix, 0) == 0;
    // NOT_RESPONDING alone is no news: a resumed node shows it for a moment until slurmd's
    // next ping; Slurm itself marks a node DOWN once it stays silent (SlurmdTimeout).
    const bool down = n.state == slurm::NodeState::Down;
    const auto wanted = nodes_.out.find(n.name);
    if (wanted != nodes_.out.end() && !drained) {
      if (const Status st = client_.drain(n.name, kPrefix + wanted->second); !st)
        failed("draining " + n.name, st.error());
    } else if (wanted == nodes_.out.end() && ours) {
      if (const Status st = client_.resume(n.name); !st) failed("resuming " + n.name, st.error());
    }
    const bool theirs = (drained && !ours) || down;
    if (theirs) {
      // An operator cleared the hold Slurm's drain gave: resume it in Slurm too.
      if (released_.erase(n.name)) {
        if (const Status st = client_.resume(n.name); !st) failed("resuming " + n.name, st.error());
        reportedOut_.erase(n.name);
        continue;
      }
      // Reported when it changes only: an operator who cleared the hold meanwhile is not
      // overruled by the same news again.
      const std::string why = "Slurm: " + (n.reason.empty() ? n.stateText : n.reason);
      auto& last = reportedOut_[n.name];
      if (last != why + (down ? " (down)" : "")) {
        last = why + (down ? " (down)" : "");
        seen.nodes.push_back({n.name, true, down, literal(why)});
      }
    } else if (reportedOut_.erase(n.name)) {
      returned(n.name, seen);
    }
  }
}

// The node is back: its executor hold goes (an observation), and the release that follows from
// the engine is known to be this one's.
void SlurmDriver::returned(const std::string& node, Observations& seen) {
  seen.nodes.push_back({node, false, false, {}});
  returned_.insert(node);
}

bool SlurmDriver::migPending(const std::string& node) const {
  if (migWork_.count(node)) return true;
  const auto want = nodes_.mig.find(node);
  const auto applied = migApplied_.find(node);
  return want != nodes_.mig.end() && applied != migApplied_.end() &&
         want->second.signature != applied->second;
}

// A MIG layout the engine changed (an operator's repartition) and Slurm does not have yet: the
// node is drained (and held in the engine), and once its jobs have ended the site's hook applies
// the files. Slurm cannot change a node's GRES while jobs run on it.
void SlurmDriver::reconcileMig(Observations& seen) {
  static const std::string kDrain = "tessera: MIG repartition";
  for (auto it = migWork_.begin(); it != migWork_.end();) {
    const auto want = nodes_.mig.find(it->first);
    if (want != nodes_.mig.end() && want->second.signature != migApplied_[it->first]) {
      ++it;
      continue;
    }
    // Back to the layout Slurm has (or the node is gone): nothing to apply.
    if (const Status st = client_.resume(it->first); !st)
      failed("resuming " + it->first, st.error());
    returned(it->first, seen);
    it = migWork_.erase(it);
  }
  for (const auto& [node, want] : nodes_.mig) {
    if (want.signature == migApplied_[node]) continue;
    auto [it, fresh] = migWork_.try_emplace(node, MigWork{want, false});
    MigWork& w = it->second;
    if (!fresh && w.want.signature != want.signature) w = MigWork{want, false};
    if (w.failed) {
      if (!released_.erase(node)) continue;
      // Cleared by an operator: with a hook, try again; without one, the operator applied it.
      w.failed = false;
      if (config_.migHook.empty()) {
        migApplied_[node] = want.signature;
        continue;  // resumed at the next step (the work is done)
      }
    }
    // An init-capture: clang before 16 cannot capture a structured binding (the sanitizer builds).
    const auto n =
        std::find_if(slurmNodes_.nodes.begin(), slurmNodes_.nodes.end(),
                     [&name = node](const slurm::SlurmNode& x) { return x.name == name; });
    if (n == slurmNodes_.nodes.end()) continue;
    if (!n->hasFlag("DRAIN") || n->reason != kDrain) {
      if (const Status st = client_.drain(node, kDrain); !st) {
        failed("draining " + node + " for its MIG repartition", st.error());
        continue;
      }
      seen.nodes.push_back({node, true, false, literal("MIG repartition: waiting for its jobs")});
      continue;
    }
    if (n->drained()) applyMig(node, seen);
  }
}

// The node is drained and idle: the files, then the hook; resumed when it succeeds.
void SlurmDriver::applyMig(const std::string& node, Observations& seen) {
  MigWork& w = migWork_.at(node);
  const std::filesystem::path dir = std::filesystem::path(config_.migDir) / node;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  bool written = !ec;
  for (const auto& [name, text] : {std::pair{"mig-parted.yaml", &w.want.migParted},
                                   {"gres.conf", &w.want.gresConf},
                                   {"slurm.conf", &w.want.slurmConf}}) {
    std::ofstream out(dir / name, std::ios::trunc);
    out << *text;
    written = written && out.good();
  }
  auto fail = [&](const std::string& why) {
    w.failed = true;
    failed("MIG repartition of " + node, Error{why, {}});
    seen.nodes.push_back({node, true, false, literal("MIG repartition not applied: " + why)});
  };
  if (!written) return fail("cannot write " + dir.string());
  if (config_.migHook.empty())
    return fail("no slurm.mig_hook: apply the files in " + dir.string() +
                " by hand, then clear this hold");
  std::vector<std::string> argv = config_.migHook;
  argv.push_back(node);
  argv.push_back(dir.string());
  if (const Status st = client_.runSiteCommand(argv, config_.migHookTimeout); !st)
    return fail(st.error().str());
  if (const Status st = client_.resume(node); !st) return fail(st.error().str());
  migApplied_[node] = w.want.signature;
  migWork_.erase(node);
  returned(node, seen);
}

// A window that has begun starts now in Slurm (which refuses a start in the past), for what is
// left of it.
static slurm::ReservationRequest fromNow(slurm::ReservationRequest r, Seconds now) {
  if (!r.startTime || *r.startTime > now) return r;
  const Seconds end = *r.startTime + Seconds{r.durationMinutes} * 60;
  r.startTime.reset();
  r.durationMinutes = static_cast<int>(std::max<Seconds>(1, (end - now + 59) / 60));
  return r;
}

// The engine's maintenance windows as Slurm reservations named tessera-<instance>-<id>: created
// when missing, deleted when the engine no longer has them (or has changed them: deleted, then
// created anew). Slurm's list is read again only when something was to change.
void SlurmDriver::reconcileReservations(Seconds now) {
  const std::string prefix = "tessera-" + instance_ + "-";
  // Nothing wanted and nothing made: no command (polls stay two per interval).
  if (nodes_.reservations.empty() && reservationsDone_.empty()) return;
  if (nodes_.reservations == reservationsDone_ && slurmReservations_) return;
  if (!slurmReservations_) {
    auto names = client_.reservations();
    if (!names) return failed("reading Slurm's reservations", names.error());
    slurmReservations_.emplace();
    for (const std::string& n : *names)
      if (n.rfind(prefix, 0) == 0) slurmReservations_->insert(n);
  }
  bool allDone = true;
  for (auto it = slurmReservations_->begin(); it != slurmReservations_->end();) {
    const auto want = nodes_.reservations.find(*it);
    const auto done = reservationsDone_.find(*it);
    // Found after a restart: taken to be what is wanted, rather than recreated.
    const bool keep = want != nodes_.reservations.end() &&
                      (done == reservationsDone_.end() || done->second == want->second);
    if (keep) {
      ++it;
      continue;
    }
    if (const Status st = client_.deleteReservation(*it); !st) {
      failed("deleting Slurm reservation " + *it, st.error());
      allDone = false;
      ++it;
      continue;
    }
    reservationsDone_.erase(*it);
    it = slurmReservations_->erase(it);
  }
  for (const auto& [name, want] : nodes_.reservations) {
    if (slurmReservations_->count(name)) {
      reservationsDone_.emplace(name, want);
      continue;
    }
    if (const Status st = client_.createReservation(fromNow(want, now)); !st) {
      failed("creating Slurm reservation " + name, st.error());
      allDone = false;
      continue;
    }
    slurmReservations_->insert(name);
    reservationsDone_[name] = want;
  }
  if (!allDone) slurmReservations_.reset();  // read Slurm's list again next time
}

}  // namespace tessera
