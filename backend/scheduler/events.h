#pragma once
// The engine's append-only event log: every job transition with its reason, every preemption with
// who/by whom/work lost, and every operator command (applied or dry run) with who, what, result.
// The headless backend persists it; the console and explanations read it.
#include <cstdint>
#include <string>

#include "core/ids.h"
#include "core/text.h"
#include "workload/job.h"

namespace tessera {

enum class EventKind : uint8_t {
  Submitted,
  Admitted,
  Started,
  Completed,
  Failed,
  Cancelled,
  Preempted,
  Requeued,
  Held,
  Released,
  Command,  // an operator command (audit)
};
// The kind's identifier ("requeued"), as stored and sent; eventKindText is the word the console
// translates.
const char* eventKindName(EventKind k);
Text eventKindText(EventKind k);

struct Event {
  uint64_t seq = 0;  // 1, 2, 3, ... with no gaps
  Seconds time = 0;
  EventKind kind = EventKind::Submitted;
  JobId job = kNoJob;
  JobState from = JobState::Pending;
  JobState to = JobState::Pending;
  Text reason;        // plain language, translatable
  std::string actor;  // "scheduler" or the operator's identity
  JobId by = kNoJob;  // Preempted: the job it made room for
};

// "t=120 preempted: preempted by job 5 ...": one line of a job's history as explain shows it.
Text historyLine(const Event& e);

}  // namespace tessera
