#pragma once
// The light job listing between full polls: squeue without JSON, one line per job with only what
// moves while Tessera's jobs run (state, reason, priority, nodes). With a thousand jobs queued it
// costs a tenth of `squeue --json` (which, in 22.05, ignores every filter and prints every field
// of every job), so the executor can see a job's end every second without paying for the rest.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "slurm/slurm_json.h"

namespace tessera::slurm {

// squeue --Format fields, '|'-separated (none of them can contain '|': Slurm words, numbers and
// a hostlist).
inline constexpr std::string_view kGlanceFormat =
    "JobID:|,State:|,Reason:|,PriorityLong:|,NodeList:";

struct JobGlance {
  int64_t id = 0;
  JobState state = JobState::Other;
  std::string stateText;  // Slurm's word
  std::string reason;     // "None", "JobHeldUser", "Resources", ...
  int64_t priority = 0;
  std::vector<std::string> nodes;  // expanded; empty while pending
  bool operator==(const JobGlance&) const = default;
};

// The lines of `squeue --noheader --array --states=all --Format=<kGlanceFormat>`. A malformed
// line is an Error naming its line number and what was wrong.
Expected<std::vector<JobGlance>> parseJobGlances(std::string_view text);

}  // namespace tessera::slurm
