#pragma once
// The jobs the engine holds, as GetJob, ListJobs and a brief Explain show them: an immutable
// value built on the engine thread after a commit and read from any thread, so such a read never
// waits for the engine thread or a cycle. A job's unchanging part (its Job, a few hundred bytes
// of strings) is shared between successive views and copied again only when a commit touched
// the job; the rest (state, queue position, the last cycle's verdict, placement) is copied per
// view, which costs a few milliseconds at 150k pending jobs (docs/PERFORMANCE.md).
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/huge_pages.h"
#include "scheduler/engine.h"
#include "service/session.h"
#include "service/world.h"

namespace tessera {

// One job the engine holds, as of the view's commit.
struct JobLive {
  // The job's id beside its Job: a build pairs 150,000 entries with the last view's by id, and
  // reading it through `job` was a cache miss per entry (most of a build's own time).
  JobId id = kNoJob;
  std::shared_ptr<const Job> job;
  JobState state = JobState::Pending;
  Seconds startTime = 0;
  Seconds endTime = 0;
  int preemptions = 0;
  double gpuHoursLost = 0;
  Text reason;  // why it is pending (the last cycle's verdict), or why it last changed state
  std::optional<Seconds> actualRuntime;  // simulated-live
  int queuePosition = 0;                 // as of the last cycle; 0 = not positioned
  std::optional<Seconds> eta;            // the last cycle's backfill estimate
  std::string blockedBy;
  std::vector<JobId> waitingFor;      // the running jobs that estimate waits for
  std::vector<PlacedTask> placement;  // admitted or running
  std::optional<ExternalJob> external;
  [[nodiscard]] bool active() const {
    return state == JobState::Pending || state == JobState::Admitted || state == JobState::Running;
  }
};

struct JobsView {
  // By id. Rebuilt after each commit (150,000 entries, tens of MiB): on huge pages, a fresh view
  // faults in a few dozen pages instead of thousands.
  std::vector<JobLive, HugePageAllocator<JobLive>> jobs;
  int pending = 0;  // the queue's length
  [[nodiscard]] const JobLive* find(JobId id) const;
};

// The one conversion from a record, so the engine thread's answers and the view's agree.
JobLive liveOf(const Engine& engine, const World& world, const JobRecord& r,
               const std::unordered_map<JobId, Seconds>& actualRuntime,
               std::shared_ptr<const Job> job = nullptr);
// The same into `j` (a view's entry, built in place).
void fillLive(JobLive& j, const Engine& engine, const World& world, const JobRecord& r,
              const std::unordered_map<JobId, Seconds>& actualRuntime,
              std::shared_ptr<const Job> job);
JobInfo infoOf(const JobLive& j);

// Explain without the engine: the last cycle's verdict (reason, queue position, estimated start
// and the jobs it waits for) for a pending job; for the others the same answer as explain().
// `history` is the job's stored events, oldest first.
Explanation briefExplanation(const JobLive& j, int queueLength, const std::vector<Event>& history);
// A job only the database holds (finished, and forgotten by the engine or before a restart).
Explanation storedExplanation(const JobRow& row, const std::vector<Event>& history);

// Builds successive views on the engine thread, sharing each unchanged Job with the last view.
// The view before the last is rebuilt in place once no reader holds it any more: its entries
// are overwritten (their strings and vectors keep their memory), so a build neither faults in
// fresh pages nor frees the old table (together about half of a build at 150,000 jobs).
class JobsViewBuilder {
 public:
  // Jobs a commit changed: their Job is copied again at the next build.
  void touched(const std::vector<JobId>& ids);
  // Forgets the last views (nobody reads jobs, or the engine was rebuilt).
  void reset();
  std::shared_ptr<const JobsView> build(const Engine& engine, const World& world,
                                        const std::unordered_map<JobId, Seconds>& actualRuntime);
  // Whether the last build reused the view before it (for tests and benchmarks).
  [[nodiscard]] bool lastBuildReused() const { return reused_; }

 private:
  std::shared_ptr<JobsView> last_;
  std::shared_ptr<JobsView> spare_;  // the view before last: rebuilt in place when nobody holds it
  std::vector<JobId> touched_;       // sorted and made unique at the next build
  bool reused_ = false;
};

}  // namespace tessera
