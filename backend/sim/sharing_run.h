#pragma once
// One simulation of the sharing study: a mode's cluster and workload run to the end, watched
// every sample interval for jobs that share a GPU without fault isolation, and (while searching
// for the fewest GPUs) stopped as soon as a wait target can no longer be met. `cancelled`, asked
// every sample interval, stops it with the error "cancelled".
#include <functional>
#include <memory>
#include <unordered_set>

#include "sim/sharing_study.h"

namespace tessera {

struct StudyRun {
  SimSummary summary;
  std::vector<JobOutcome> outcomes;
  std::map<WorkloadClass, Percentiles> waitByClass;
  size_t coLocatedJobs = 0;
  bool stoppedEarly = false;  // a target was already missed: the figures are partial
  bool targetsMet = false;
};

Expected<StudyRun> runStudyOnce(std::shared_ptr<const Cluster> cluster, const Trace& trace,
                                const Policy& policy, const SimConfig& config,
                                const std::vector<WaitTarget>& targets, bool stopOnMiss,
                                const std::function<bool()>& cancelled = {});

// The error a cancelled study fails with.
Error studyCancelled();

// Every target's class met: each of its jobs started and the p95 wait is within the target.
// Classes without jobs meet any target. `refusedAllowed`: jobs the engine may refuse at submit.
bool meetsTargets(const StudyRun& r, const std::vector<WaitTarget>& targets, size_t refusedAllowed);

}  // namespace tessera
