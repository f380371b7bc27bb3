#include "service/jobs_view.h"

#include <algorithm>

#include "core/engine_text.h"

namespace tessera {

const JobLive* JobsView::find(JobId id) const {
  const auto it = std::lower_bound(jobs.begin(), jobs.end(), id,
                                   [](const JobLive& j, JobId v) { return j.id < v; });
  return it != jobs.end() && it->id == id ? &*it : nullptr;
}

JobLive liveOf(const Engine& e, const World& world, const JobRecord& r,
               const std::unordered_map<JobId, Seconds>& actualRuntime,
               std::shared_ptr<const Job> job) {
  JobLive j;
  fillLive(j, e, world, r, actualRuntime, std::move(job));
  return j;
}

void fillLive(JobLive& j, const Engine& e, const World& world, const JobRecord& r,
              const std::unordered_map<JobId, Seconds>& actualRuntime,
              std::shared_ptr<const Job> job) {
  // Every field is assigned: `j` may be an entry of an older view, rebuilt in place.
  const Cluster& c = e.cluster();
  j.id = r.job.id;
  j.job = job ? std::move(job) : std::make_shared<const Job>(r.job);
  j.state = r.state;
  j.startTime = r.startTime;
  j.endTime = r.active() ? 0 : r.endTime;
  j.preemptions = r.preemptions;
  j.gpuHoursLost = r.gpuHoursLost;
  j.reason = r.reason;
  if (auto it = actualRuntime.find(r.job.id); it != actualRuntime.end())
    j.actualRuntime = it->second;
  else
    j.actualRuntime.reset();
  j.queuePosition = e.queuePosition(r);
  if (r.state == JobState::Pending) {
    j.eta = r.eta;
    j.waitingFor = r.waitingFor;
  } else {
    j.eta.reset();
    j.waitingFor.clear();
  }
  j.blockedBy = r.blockedBy;
  j.external = world.externalJob(r.job.id);
  const bool holds = r.placement && (r.state == JobState::Running || r.state == JobState::Admitted);
  j.placement.resize(holds ? r.placement->tasks.size() : 0);
  for (size_t k = 0; k < j.placement.size(); ++k) {
    const auto& t = r.placement->tasks[k];
    PlacedTask& p = j.placement[k];
    p.node = c.node(t.node).name;
    p.gpus.clear();
    for (GpuId g : t.gpus) p.gpus.push_back(c.gpu(g).index);
    p.migStart = t.migStart;
  }
}

JobInfo infoOf(const JobLive& j) {
  JobInfo info;
  info.row.job = *j.job;
  info.row.state = j.state;
  info.row.startTime = j.startTime;
  info.row.endTime = j.endTime;
  info.row.preemptions = j.preemptions;
  info.row.gpuHoursLost = j.gpuHoursLost;
  info.row.reason = j.reason;
  info.row.actualRuntime = j.actualRuntime;
  info.priority = j.job->priority;
  info.queuePosition = j.queuePosition;
  info.eta = j.eta;
  info.blockedBy = j.blockedBy;
  info.external = j.external;
  if (j.state == JobState::Running) info.placement = j.placement;
  return info;
}

namespace {

std::vector<Text> historyLines(const std::vector<Event>& events) {
  std::vector<Text> lines;
  lines.reserve(events.size());
  for (const Event& ev : events) lines.push_back(historyLine(ev));
  return lines;
}

// explain()'s words for a job that holds GPUs: "running since T on pod-a-02 GPU 3 4".
Text placementText(const std::vector<PlacedTask>& placement) {
  std::vector<Text> tasks;
  for (const PlacedTask& t : placement) {
    std::string gpus;
    for (int g : t.gpus) gpus += (gpus.empty() ? "" : " ") + std::to_string(g);
    tasks.push_back(phrase(text::kGpuOfNode, t.node, gpus));
  }
  return clauseList(std::move(tasks));
}

}  // namespace

Explanation briefExplanation(const JobLive& j, int queueLength, const std::vector<Event>& history) {
  Explanation x;
  x.job = j.id;
  x.state = j.state;
  x.history = historyLines(history);
  switch (j.state) {
    case JobState::Pending:
      x.dominantReason = j.reason;
      if (j.queuePosition > 0) x.queuePosition = j.queuePosition;
      x.queueLength = queueLength;
      x.eta = j.eta;
      if (j.eta) x.blockingJobs = j.waitingFor;
      break;
    case JobState::Admitted:
    case JobState::Running:
      x.placement = placementText(j.placement);
      x.dominantReason = phrase(text::kRunningSince, j.startTime, x.placement);
      break;
    default:
      x.dominantReason =
          history.empty() ? jobStateText(j.state)
                          : phrase(text::kLabelled, jobStateText(j.state), history.back().reason);
      break;
  }
  return x;
}

Explanation storedExplanation(const JobRow& row, const std::vector<Event>& history) {
  Explanation x;
  x.job = row.job.id;
  x.state = row.state;
  x.dominantReason = row.reason;
  x.history = historyLines(history);
  return x;
}

void JobsViewBuilder::touched(const std::vector<JobId>& ids) {
  if (last_) touched_.insert(touched_.end(), ids.begin(), ids.end());
}

void JobsViewBuilder::reset() {
  last_.reset();
  spare_.reset();
  touched_.clear();
}

std::shared_ptr<const JobsView> JobsViewBuilder::build(
    const Engine& engine, const World& world,
    const std::unordered_map<JobId, Seconds>& actualRuntime) {
  // Nobody else holds the spare once its count is 1: it is no longer published, so no reader
  // can take a new reference to it.
  reused_ = spare_ && spare_.use_count() == 1;
  std::shared_ptr<JobsView> view = reused_ ? std::move(spare_) : std::make_shared<JobsView>();
  spare_.reset();
  view->pending = 0;
  std::vector<const JobRecord*> records = engine.jobs();
  const auto byId = [](const JobRecord* a, const JobRecord* b) { return a->job.id < b->job.id; };
  if (!std::is_sorted(records.begin(), records.end(), byId))
    std::sort(records.begin(), records.end(), byId);
  std::sort(touched_.begin(), touched_.end());
  touched_.erase(std::unique(touched_.begin(), touched_.end()), touched_.end());
  auto& out = view->jobs;
  if (out.size() > records.size()) out.resize(records.size());
  out.reserve(records.size());
  // All three in id order: one walk pairs each record with its entry in the last view and
  // with the touched list.
  const decltype(JobsView::jobs) none;
  const auto& before = last_ ? last_->jobs : none;
  auto prev = before.begin();
  auto touched = touched_.begin();
  for (size_t k = 0; k < records.size(); ++k) {
    const JobRecord* r = records[k];
    const JobId id = r->job.id;
    while (prev != before.end() && prev->id < id) ++prev;
    while (touched != touched_.end() && *touched < id) ++touched;
    std::shared_ptr<const Job> job;
    if (prev != before.end() && prev->id == id && prev->state == r->state &&
        (touched == touched_.end() || *touched != id))
      job = prev->job;
    JobLive& entry = k < out.size() ? out[k] : out.emplace_back();
    fillLive(entry, engine, world, *r, actualRuntime, std::move(job));
    if (r->state == JobState::Pending) ++view->pending;
  }
  touched_.clear();
  spare_ = std::move(last_);
  last_ = view;
  return view;
}

}  // namespace tessera
