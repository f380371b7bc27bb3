// Engine::forgetHistory: what a long-running backend drops once its database holds it.
#include <algorithm>

#include "scheduler/engine.h"

namespace tessera {

namespace {

// Old jobs_ index -> new index, or kGone for a dropped record.
constexpr uint32_t kGone = UINT32_MAX;

void remapIndexes(std::vector<uint32_t>& indexes, const std::vector<uint32_t>& to) {
  std::erase_if(indexes, [&to](uint32_t i) { return to[i] == kGone; });
  for (uint32_t& i : indexes) i = to[i];
}

}  // namespace

Engine::Forgotten Engine::forgetHistory(Seconds endedBefore, size_t keepEvents) {
  Forgotten out;
  if (events_.size() > keepEvents) {
    out.events = events_.size() - keepEvents;
    events_.erase(events_.begin(), events_.begin() + static_cast<std::ptrdiff_t>(out.events));
    eventBase_ += out.events;
  }
  const auto forget = [endedBefore](const JobRecord& r) {
    return !r.active() && r.endTime < endedBefore;
  };
  // Called each time the event log outgrows its bound: no pass over the jobs when none ended.
  if (finished_ == 0 || std::none_of(jobs_.begin(), jobs_.end(), forget)) return out;

  std::vector<uint32_t> to(jobs_.size(), kGone);
  JobRecords kept;
  std::vector<int32_t> keptPositions;
  kept.reserve(jobs_.size());
  keptPositions.reserve(jobs_.size());
  for (size_t i = 0; i < jobs_.size(); ++i) {
    if (forget(jobs_[i])) {
      index_.erase(jobs_[i].job.id);
      ++out.jobs;
      continue;
    }
    to[i] = static_cast<uint32_t>(kept.size());
    index_[jobs_[i].job.id] = kept.size();
    keptPositions.push_back(i < positions_.size() ? positions_[i] : 0);
    kept.push_back(std::move(jobs_[i]));
  }
  jobs_ = std::move(kept);
  positions_ = std::move(keptPositions);
  finished_ -= out.jobs;
  remapIndexes(running_, to);  // running jobs are never dropped: the order and slots hold
  remapIndexes(active_, to);
  remapIndexes(positioned_, to);
  remapIndexes(withEta_, to);
  queueIndex_.remap(to, kGone);
  std::set<RunningEnd> ends;
  for (RunningEnd e : runningEnds_) {
    e.index = to[e.index];
    ends.insert(ends.end(), e);
  }
  runningEnds_ = std::move(ends);
  return out;
}

}  // namespace tessera
