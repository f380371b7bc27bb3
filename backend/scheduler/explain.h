#pragma once
// "Why is this job pending, and when will it start?" answered by the engine itself: the node
// rejection counts, one dominant reason in plain language, the jobs and queues in the way, the
// queue position, the estimated start from the backfill plan, and counterfactuals the engine
// checked by trying them ("would start now if team vision's H100 quota were +2").
#include <optional>
#include <string>
#include <vector>

#include "scheduler/engine.h"

namespace tessera {

struct Counterfactual {
  enum class Kind : uint8_t { Quota, Repartition, JobsEnd, RelaxTopology, Preemption, Release };
  Kind kind;
  Text text;
};
const char* counterfactualKindName(Counterfactual::Kind k);

struct Explanation {
  JobId job = kNoJob;
  JobState state = JobState::Pending;
  Text dominantReason;      // one sentence
  Text nodeSummary;         // "0/62 nodes fit; 40 not enough free GPUs, ..."
  NodeFilterResult filter;  // the counts behind it
  std::vector<JobId> blockingJobs;
  std::vector<std::string> blockingQueues;  // teams whose use stands in the way
  std::optional<int> queuePosition;         // 1 = next; among pending jobs
  int queueLength = 0;
  std::optional<Seconds> eta;  // estimated start (engine clock)
  Text fragmentation;          // "8 GPUs free, but the largest ... block is 4"
  std::vector<Counterfactual> counterfactuals;
  std::vector<Text> history;               // the job's events, oldest first (historyLine)
  Text placement;                          // running: where
  [[nodiscard]] std::string text() const;  // everything above, for a terminal
};

Expected<Explanation> explain(const Engine& engine, JobId id);

// A preemption in words: who, by whom, why, work lost (from the event log).
std::vector<std::string> preemptionReport(const Engine& engine);

}  // namespace tessera
