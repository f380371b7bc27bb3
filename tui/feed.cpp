#include "feed.h"

#include "history.h"

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

Feed::Feed(std::shared_ptr<Backend> backend, std::shared_ptr<rpc::RemoteSession> remote,
           const GpuCatalog& catalog)
    : backend_(std::move(backend)), remote_(std::move(remote)), catalog_(catalog) {}

Feed::~Feed() {
  if (cancelWatch_) cancelWatch_();
  stopRemoteTail();
}

ClusterSession& Feed::session() const {
  if (backend_) return *backend_;
  return *remote_;
}

void Feed::watch(std::function<void()> onChange) {
  cancelWatch_ = session().watchChanges(std::move(onChange));
}

// The remote event stream on its own thread, which the Feed joins (stopRemoteTail cancels the
// stream it is blocked on). When the stream breaks (the server restarts, the network drops) it is
// opened again a little later from the last event seen, so the tail resumes without a gap or a
// repeat whenever the server is back.
void Feed::startRemoteTail(uint64_t after) {
  tailThread_ = std::thread([this, after] { followRemoteTail(after); });
}

void Feed::followRemoteTail(uint64_t after) {
  uint64_t last = after;
  while (true) {
    grpc::ClientContext ctx;
    remote_->prepare(ctx, false);
    {
      std::lock_guard lock(tail_.mutex);
      if (tail_.stop) return;
      tail_.stream = &ctx;
    }
    rpc::v1::WatchEventsRequest request;
    request.set_after_seq(last);
    auto reader = remote_->stub().WatchEvents(&ctx, request);
    rpc::v1::WatchEventsResponse batch;
    while (reader->Read(&batch)) {
      std::lock_guard lock(tail_.mutex);
      for (const auto& e : batch.events()) {
        if (e.seq() <= last) continue;  // the server sends each event once; be sure after a resume
        last = e.seq();
        tail_.events.push_back(rpc::eventFromProto(e));
        if (tail_.events.size() > Data::kEventTail) tail_.events.pop_front();
      }
    }
    reader->Finish();
    std::unique_lock lock(tail_.mutex);
    tail_.stream = nullptr;
    if (tail_.stopped.wait_for(lock, std::chrono::seconds(1), [this] { return tail_.stop; }))
      return;
  }
}

void Feed::stopRemoteTail() {
  {
    std::lock_guard lock(tail_.mutex);
    tail_.stop = true;
    if (tail_.stream) tail_.stream->TryCancel();
  }
  tail_.stopped.notify_all();
  if (tailThread_.joinable()) tailThread_.join();
}

std::vector<Event> Feed::newEvents(uint64_t after) {
  if (backend_) {
    auto events = backend_->events().read(after, Data::kEventTail);
    return events ? std::move(*events) : std::vector<Event>{};
  }
  std::lock_guard lock(tail_.mutex);
  std::vector<Event> out;
  for (const Event& e : tail_.events)
    if (e.seq > after) out.push_back(e);
  tail_.events.clear();
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

}  // namespace

// A brief explanation of an unchanged verdict, with what only the whole one has (the node
// breakdown, fragmentation, the teams in the way, what would help) from the last whole answer.
Explanation withLastAdvice(Explanation brief, const Explanation& whole) {
  brief.nodeSummary = whole.nodeSummary;
  brief.filter = whole.filter;
  brief.blockingQueues = whole.blockingQueues;
  brief.fragmentation = whole.fragmentation;
  brief.counterfactuals = whole.counterfactuals;
  return brief;
}

void Feed::explain(Data& d, JobId id) {
  const auto now = std::chrono::steady_clock::now();
  const std::optional<Explanation>& last = d.explanation;
  const bool fresh = last && last->job == id && now - d.explainedWhole < kWholeExplainEvery;
  if (fresh) {
    auto brief =
        await<Explanation>([&](Reply<Explanation> r) { session().explainBrief(id, std::move(r)); });
    auto* b = std::get_if<Explanation>(&brief);
    if (!b) return;
    if (b->state == last->state && b->dominantReason == last->dominantReason) {
      d.explanation = withLastAdvice(std::move(*b), *last);
      return;
    }
  }
  auto whole =
      await<Explanation>([&](Reply<Explanation> r) { session().explainJob(id, std::move(r)); });
  if (auto* e = std::get_if<Explanation>(&whole)) {
    d.explanation = std::move(*e);
    d.explainedWhole = now;
  }
}

// Nodes awaiting admission and the nodes' warnings (both tesserad and the embedded backend keep
// inventories). A failed call (a server too old for ListNodeInventory) keeps the last list.
void Feed::fetchInventory(Data& d) {
  NodeInventorySource& source = backend_ ? static_cast<NodeInventorySource&>(*backend_) : *remote_;
  using Nodes = std::vector<NodeInventoryView>;
  auto nodes = await<Nodes>([&](Reply<Nodes> r) { source.nodeInventory(std::move(r)); });
  if (auto* n = std::get_if<Nodes>(&nodes)) d.inventory = std::move(*n);
}

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
  fetchInventory(d);
  if (explainJob != kNoJob) explain(d, explainJob);
  // The tail starts a little before the present, then follows.
  const uint64_t start =
      d.snapshot.lastEventSeq > Data::kEventTail ? d.snapshot.lastEventSeq - Data::kEventTail : 0;
  if (remote_ && !tailThread_.joinable()) startRemoteTail(start);
  const uint64_t after = d.events.empty() ? start : d.events.back().seq;
  for (Event& e : newEvents(after)) d.events.push_back(std::move(e));
  while (d.events.size() > Data::kEventTail) d.events.pop_front();
  recordHistory(d);
  deriveGpus(d, catalog_);
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
