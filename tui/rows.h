#pragma once
// The rows of each list view, filtered and sorted: what the views draw and what the selection
// points into. A filter is words (each must appear in some field, case-insensitive) and
// key=value terms (the named field must contain the value): "llm state=pending team=vision".
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "state.h"

namespace tessera::tui {

using Field = std::pair<std::string_view, std::string>;  // key, value

struct Filter {
  std::vector<std::pair<std::string, std::string>> keyed;
  std::vector<std::string> words;
  static Filter parse(std::string_view text);
  [[nodiscard]] bool matches(const std::vector<Field>& fields) const;
  [[nodiscard]] bool empty() const { return keyed.empty() && words.empty(); }
};

std::vector<Field> jobFields(const JobInfo& j);
std::vector<Field> nodeFields(const NodeView& n);

// A GPU with its node, for the MIG view.
struct GpuRef {
  const NodeView* node = nullptr;
  const GpuView* gpu = nullptr;
};

std::vector<const JobInfo*> visibleJobs(const State& s);  // Jobs (all active) or Pending
std::vector<const NodeView*> visibleNodes(const State& s);
std::vector<GpuRef> visibleMigGpus(const State& s);
std::vector<const Event*> visibleEvents(const State& s);  // newest first
std::vector<const TeamView*> visibleTeams(const State& s);

// Rows in the current view (0 for views without a selection).
int rowCount(const State& s);
// The job or node under the selection, if the view lists them.
std::optional<JobId> selectedJob(const State& s);
std::optional<std::string> selectedNode(const State& s);

// Column titles of the jobs views in sort order (JobSort), for the header and the sort key.
const char* jobSortName(JobSort k);
// The first task's node of a running job, or "".
std::string jobNodes(const JobInfo& j);
// "2xGPU", "1g.10gb", "0.5 GPU": what one task asks for, times the tasks.
std::string jobRequest(const Job& j);

}  // namespace tessera::tui
