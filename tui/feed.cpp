#include "feed.h"

#include <future>
#include <map>

namespace tessera::tui {

template <typename T>
std::variant<T, ApiError> await(const std::function<void(Reply<T>)>& call, double seconds) {
  auto promise = std::make_shared<std::promise<std::variant<T, ApiError>>>();
  auto future = promise->get_future();
  call([promise](std::variant<T, ApiError> r) { promise->set_value(std::move(r)); });
  if (future.wait_for(std::chrono::duration<double>(seconds)) != std::future_status::ready)
    return ApiError{ErrorKind::DeadlineExceeded, "no answer in time", {}};
  return future.get();
}

Feed::Feed(std::shared_ptr<Backend> backend, std::shared_ptr<rpc::RemoteSession> remote)
    : backend_(std::move(backend)), remote_(std::move(remote)), tail_(std::make_shared<Tail>()) {}

Feed::~Feed() {
  if (cancelWatch_) cancelWatch_();
  tail_->stop = true;
}

ClusterSession& Feed::session() const {
  if (backend_) return *backend_;
  return *remote_;
}

void Feed::watch(std::function<void()> onChange) {
  cancelWatch_ = session().watchChanges(std::move(onChange));
}

// The remote event stream on its own thread. RemoteSession::watch reconnects by itself from the
// last event it saw; when it gives up (a long outage) the stream is opened again from there a
// little later, so the tail resumes without a gap or a repeat whenever the server is back. The
// thread cannot be interrupted while it waits for the next event, so it is detached: it ends at
// the next event after stop, or with the process.
void Feed::startRemoteTail(uint64_t after) {
  tailStarted_ = true;
  std::thread([remote = remote_, tail = tail_, after] {
    uint64_t last = after;
    while (!tail->stop) {
      remote->watch(last, [&](const Event& e) {
        if (tail->stop) return false;
        last = e.seq;
        std::lock_guard lock(tail->mutex);
        tail->events.push_back(e);
        if (tail->events.size() > Data::kEventTail) tail->events.pop_front();
        return true;
      });
      if (!tail->stop) std::this_thread::sleep_for(std::chrono::seconds(2));
    }
  }).detach();
}

std::vector<Event> Feed::newEvents(uint64_t after) {
  if (backend_) {
    auto events = backend_->events().read(after, Data::kEventTail);
    return events ? std::move(*events) : std::vector<Event>{};
  }
  std::lock_guard lock(tail_->mutex);
  std::vector<Event> out;
  for (const Event& e : tail_->events)
    if (e.seq > after) out.push_back(e);
  tail_->events.clear();
  return out;
}

namespace {

// All active jobs, page by page (at most 20,000: a terminal shows far fewer).
std::variant<std::vector<JobInfo>, ApiError> activeJobs(ClusterSession& s) {
  std::vector<JobInfo> jobs;
  JobFilter f;
  f.activeOnly = true;
  f.limit = 1000;
  while (jobs.size() < 20000) {
    auto page = await<JobPage>([&](Reply<JobPage> r) { s.jobs(f, std::move(r)); });
    if (auto* e = std::get_if<ApiError>(&page)) return *e;
    auto& p = std::get<JobPage>(page);
    std::move(p.jobs.begin(), p.jobs.end(), std::back_inserter(jobs));
    if (p.nextAfter == 0) break;
    f.afterId = p.nextAfter;
  }
  return jobs;
}

UtilPoint utilOf(const ClusterSnapshot& s) {
  UtilPoint p;
  double gpus = 0;
  for (const NodeView& n : s.nodes)
    for (const GpuView& g : n.gpus) {
      gpus += 1;
      p.allocated += g.allocated;
      p.busy += g.util.value_or(0);
      p.smActive += g.smActive.value_or(0);
    }
  if (gpus > 0) p.allocated /= gpus, p.busy /= gpus, p.smActive /= gpus;
  return p;
}

}  // namespace

Data Feed::fetch(const Data& previous, JobId explainJob) {
  Data d = previous;
  auto snap = await<ClusterSnapshot>(
      [this](Reply<ClusterSnapshot> r) { session().snapshot(std::move(r)); });
  if (auto* e = std::get_if<ApiError>(&snap)) {
    d.connection = e->message;
    return d;
  }
  d.snapshot = std::move(std::get<ClusterSnapshot>(snap));
  d.connection.clear();
  auto jobs = activeJobs(session());
  if (auto* j = std::get_if<std::vector<JobInfo>>(&jobs)) d.jobs = std::move(*j);
  if (explainJob != kNoJob) {
    auto ex = await<Explanation>(
        [&](Reply<Explanation> r) { session().explainJob(explainJob, std::move(r)); });
    if (auto* e = std::get_if<Explanation>(&ex)) d.explanation = std::move(*e);
  }
  // The tail starts a little before the present, then follows.
  const uint64_t start =
      d.snapshot.lastEventSeq > Data::kEventTail ? d.snapshot.lastEventSeq - Data::kEventTail : 0;
  if (remote_ && !tailStarted_) startRemoteTail(start);
  const uint64_t after = d.events.empty() ? start : d.events.back().seq;
  for (Event& e : newEvents(after)) d.events.push_back(std::move(e));
  while (d.events.size() > Data::kEventTail) d.events.pop_front();
  d.history.push_back(utilOf(d.snapshot));
  while (d.history.size() > Data::kHistory) d.history.pop_front();
  const auto record = [](std::deque<double>& h, double v) {
    h.push_back(v);
    while (h.size() > Data::kHistory) h.pop_front();
  };
  for (const TeamView& t : d.snapshot.teams) record(d.teamHistory[t.name], t.gpusInUse);
  std::map<std::string, std::pair<double, double>> pools;  // allocated, total
  for (const NodeView& n : d.snapshot.nodes)
    for (const GpuView& g : n.gpus) pools[n.pool].first += g.allocated, pools[n.pool].second += 1;
  for (const auto& [pool, v] : pools) record(d.poolHistory[pool], v.first / v.second);
  return d;
}

std::variant<CommandResult, ApiError> Feed::act(const Command& c, bool dryRun) {
  const Caller who{remote_ ? "" : "top"};
  return await<CommandResult>(
      [&](Reply<CommandResult> r) { session().act(c, dryRun, who, std::nullopt, std::move(r)); });
}

template std::variant<ClusterSnapshot, ApiError> await(
    const std::function<void(Reply<ClusterSnapshot>)>&, double);

}  // namespace tessera::tui
