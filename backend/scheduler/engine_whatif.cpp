// Engine::WhatIf: a dry run on the engine itself, undone as a whole.
//
// What is saved when it begins is what a command or a cycle may change and what does not grow
// with the queue or the history: the cluster state, node holds, policy and plugins, the books
// (quotas, fair share, reservations, team use), the running list and the index vectors. A job
// record is saved on its first change (touch). The cycle of a what-if leaves the verdicts of
// jobs that stay pending alone (Engine::runCycle), so nothing per queued job is saved. Records
// and events added inside are dropped at the end. The journal's buffers are kept for the next
// what-if: a dry run comes with every console hover.
#include <algorithm>
#include <cassert>

#include "scheduler/engine.h"

namespace tessera {

struct Engine::Journal {
  explicit Journal(const ClusterState& s) : state(s) {}
  ClusterState state;
  std::vector<NodeHolds> nodeHolds;
  Policy policy;
  PluginSet plugins;
  QuotaBook quotas;
  FairShare fairShare;
  ReservationBook reservations;
  std::vector<PriorityClass> classes;
  std::vector<uint32_t> running, positioned, active, withEta;
  QueueIndex queueIndex;
  std::vector<int32_t> positions;
  std::set<RunningEnd> runningEnds;
  std::vector<ResourceUse> teamUse;
  std::vector<Job> future;
  EngineStats stats;
  Seconds now = 0, lastPlan = 0;
  int64_t nextRank = 0;
  size_t finished = 0, jobs = 0, events = 0;

  std::vector<uint8_t> saved;  // per record that existed at the start: 1 once saved
  std::vector<std::pair<uint32_t, JobRecord>> records;
};

Engine::JournalSlot::JournalSlot() = default;
Engine::JournalSlot::JournalSlot(const JournalSlot&) {}
Engine::JournalSlot& Engine::JournalSlot::operator=(const JournalSlot&) {
  return *this;
}
Engine::JournalSlot::JournalSlot(JournalSlot&&) noexcept = default;
Engine::JournalSlot& Engine::JournalSlot::operator=(JournalSlot&&) noexcept = default;
Engine::JournalSlot::~JournalSlot() = default;

void Engine::beginWhatIf() {
  assert(!journal_.journal && "one what-if at a time");
  std::unique_ptr<Journal> j = std::move(journal_.spare);
  if (j)
    j->state = state_;
  else
    j = std::make_unique<Journal>(state_);
  j->nodeHolds = nodeHolds_;
  j->policy = policy_;
  j->plugins = plugins_;
  j->quotas = quotas_;
  j->fairShare = fairShare_;
  j->reservations = reservations_;
  j->classes = classes_;
  j->running = running_;
  j->positioned = positioned_;
  j->active = active_;
  j->withEta = withEta_;
  j->queueIndex = queueIndex_;
  j->positions = positions_;
  j->runningEnds = runningEnds_;
  j->teamUse = teamUse_;
  j->future = future_;
  j->stats = stats_;
  j->now = now_;
  j->lastPlan = lastPlan_;
  j->nextRank = nextRank_;
  j->finished = finished_;
  j->jobs = jobs_.size();
  j->events = events_.size();
  j->saved.assign(jobs_.size(), 0);
  journal_.journal = std::move(j);
}

void Engine::saveRecord(size_t index) {
  Journal& j = *journal_.journal;
  if (index >= j.jobs || j.saved[index]) return;
  j.saved[index] = 1;
  j.records.emplace_back(static_cast<uint32_t>(index), jobs_[index]);
}

void Engine::rollBackWhatIf() {
  std::unique_ptr<Journal> owned = std::move(journal_.journal);
  Journal& j = *owned;
  for (size_t i = j.jobs; i < jobs_.size(); ++i) index_.erase(jobs_[i].job.id);
  jobs_.erase(jobs_.begin() + static_cast<std::ptrdiff_t>(j.jobs), jobs_.end());
  events_.erase(events_.begin() + static_cast<std::ptrdiff_t>(j.events), events_.end());
  for (auto& [index, record] : j.records) jobs_[index] = std::move(record);
  j.records.clear();
  // Swapped rather than moved: the journal keeps the buffers, and the next what-if's copy
  // assignments reuse them (a std::set reuses its nodes: no allocation per running job).
  std::swap(state_, j.state);
  std::swap(nodeHolds_, j.nodeHolds);
  policy_ = std::move(j.policy);
  plugins_ = std::move(j.plugins);
  quotas_ = std::move(j.quotas);
  fairShare_ = std::move(j.fairShare);
  std::swap(reservations_, j.reservations);
  classes_ = std::move(j.classes);
  std::swap(running_, j.running);
  std::swap(positioned_, j.positioned);
  std::swap(active_, j.active);
  std::swap(withEta_, j.withEta);
  std::swap(queueIndex_, j.queueIndex);
  std::swap(positions_, j.positions);
  std::swap(runningEnds_, j.runningEnds);
  std::swap(teamUse_, j.teamUse);
  std::swap(future_, j.future);
  stats_ = std::move(j.stats);
  now_ = j.now;
  lastPlan_ = j.lastPlan;
  nextRank_ = j.nextRank;
  finished_ = j.finished;
  journal_.spare = std::move(owned);
}

// Ends a what-if whose changes stay: the saved state goes to the spare journal unused.
void Engine::keepWhatIf() {
  std::unique_ptr<Journal> owned = std::move(journal_.journal);
  owned->records.clear();
  journal_.spare = std::move(owned);
}

Engine::WhatIf::WhatIf(Engine& engine, Purpose purpose) : engine_(engine) {
  engine_.beginWhatIf();
  // Its cycle keeps the last backfill plan, as a cycle between plans does (reservations of jobs
  // that start or leave are dropped): a prediction asks what starts and what is evicted, and
  // planning up to `depth` reservations again would be half of its time.
  if (purpose == Purpose::Predict && engine_.lastPlan_ >= 0)
    engine_.policy_.backfill.interval = kForever;
}

Engine::WhatIf::~WhatIf() {
  if (!kept_) engine_.rollBackWhatIf();
}

void Engine::WhatIf::keep() {
  if (kept_) return;
  kept_ = true;
  engine_.keepWhatIf();
}

std::vector<std::pair<const JobRecord*, const JobRecord*>> Engine::WhatIf::changedJobs() const {
  const Journal& j = *engine_.journal_.journal;
  std::vector<std::pair<const JobRecord*, const JobRecord*>> out;
  out.reserve(j.records.size() + engine_.jobs_.size() - j.jobs);
  for (const auto& [index, before] : j.records) out.emplace_back(&before, &engine_.jobs_[index]);
  std::sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
    return a.second < b.second;  // storage order
  });
  for (size_t i = j.jobs; i < engine_.jobs_.size(); ++i)
    out.emplace_back(nullptr, &engine_.jobs_[i]);
  return out;
}

}  // namespace tessera
