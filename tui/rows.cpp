#include "rows.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "text.h"

namespace tessera::tui {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool contains(std::string_view haystack, std::string_view needle) {
  return lower(haystack).find(needle) != std::string::npos;
}

}  // namespace

Filter Filter::parse(std::string_view text) {
  Filter f;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    const size_t end = std::min(text.find(' ', i), text.size());
    if (end > i) {
      const std::string term = lower(text.substr(i, end - i));
      const size_t eq = term.find('=');
      if (eq != std::string::npos && eq > 0)
        f.keyed.emplace_back(term.substr(0, eq), term.substr(eq + 1));
      else
        f.words.push_back(term);
    }
    i = end;
  }
  return f;
}

bool Filter::matches(const std::vector<Field>& fields) const {
  for (const auto& [key, value] : keyed) {
    const auto it = std::find_if(fields.begin(), fields.end(),
                                 [&k = key](const Field& f) { return f.first == k; });
    if (it == fields.end() || !contains(it->second, value)) return false;
  }
  for (const std::string& w : words) {
    const bool any = std::any_of(fields.begin(), fields.end(),
                                 [&](const Field& f) { return contains(f.second, w); });
    if (!any) return false;
  }
  return true;
}

std::string jobNodes(const JobInfo& j) {
  std::set<std::string> nodes;
  for (const auto& t : j.placement) nodes.insert(t.node);
  std::string out;
  for (const auto& n : nodes) out += (out.empty() ? "" : ",") + n;
  return out;
}

std::string jobRequest(const Job& j) {
  const auto& r = j.perTask;
  const std::string tasks = j.tasks > 1 ? std::to_string(j.tasks) + "x" : "";
  switch (r.kind) {
    case GpuRequest::Kind::Whole:
      return tasks + std::to_string(r.gpus) + " GPU";
    case GpuRequest::Kind::Mig:
      return tasks + r.migProfile;
    case GpuRequest::Kind::Fraction:
      return tasks + std::to_string(r.milli / 10) + "% GPU";
    case GpuRequest::Kind::Mps:
      return tasks + "MPS " + std::to_string(r.mpsThreads) + "%";
    case GpuRequest::Kind::None:
      break;
  }
  return tasks + "-";
}

std::vector<Field> jobFields(const JobInfo& j) {
  const Job& job = j.row.job;
  return {{"id", std::to_string(job.id)},
          {"name", job.name},
          {"team", job.team},
          {"class", job.priorityClass},
          {"state", jobStateName(j.row.state)},
          {"node", jobNodes(j)},
          {"gpus", jobRequest(job)},
          {"pool", job.pool},
          {"held", job.held ? "yes" : "no"},
          {"reason", engineText(j.row.reason)}};
}

std::vector<Field> nodeFields(const NodeView& n) {
  std::vector<Field> f{{"name", n.name},
                       {"node", n.name},
                       {"state", n.state},
                       {"pool", n.pool},
                       {"leaf", n.leaf},
                       {"spine", n.spine},
                       {"reason", engineText(n.stateReason)}};
  if (!n.gpus.empty()) f.emplace_back("model", n.gpus.front().model);
  return f;
}

const char* jobSortName(JobSort k) {
  static const char* const kNames[kJobSortCount] = {"id",    "name", "team", "priority",
                                                    "state", "gpus", "age",  "position"};
  return kNames[static_cast<int>(k)];
}

namespace {

// Orders by the chosen key, ties by id so that the order never flickers between refreshes.
bool jobLess(const JobInfo& a, const JobInfo& b, JobSort k) {
  const Job& x = a.row.job;
  const Job& y = b.row.job;
  auto key = [&](const JobInfo& i, const Job& j) {
    switch (k) {
      case JobSort::Name:
        return std::make_tuple(std::string(), j.name, int64_t{0});
      case JobSort::Team:
        return std::make_tuple(j.team, std::string(), int64_t{0});
      case JobSort::Priority:
        return std::make_tuple(std::string(), std::string(), int64_t{-i.priority});
      case JobSort::State:
        return std::make_tuple(std::string(jobStateName(i.row.state)), std::string(), int64_t{0});
      case JobSort::Gpus:
        return std::make_tuple(std::string(), std::string(),
                               static_cast<int64_t>(-j.gpuDemand() * 1000));
      case JobSort::Age:
        return std::make_tuple(std::string(), std::string(), int64_t{j.submitTime});
      case JobSort::Position:
        return std::make_tuple(std::string(), std::string(),
                               int64_t{i.queuePosition > 0 ? i.queuePosition : 1 << 30});
      case JobSort::Id:
        break;
    }
    return std::make_tuple(std::string(), std::string(), int64_t{0});
  };
  const auto ka = key(a, x);
  const auto kb = key(b, y);
  if (ka != kb) return ka < kb;
  return x.id < y.id;
}

}  // namespace

std::vector<const JobInfo*> visibleJobs(const State& s) {
  const Filter f = Filter::parse(s.ui.filter);
  const View v = s.ui.view();
  std::vector<const JobInfo*> rows;
  for (const JobInfo& j : s.data.jobs) {
    if (v == View::Pending && j.row.state != JobState::Pending) continue;
    if (v == View::Running && j.row.state != JobState::Running) continue;
    if (!f.empty() && !f.matches(jobFields(j))) continue;
    rows.push_back(&j);
  }
  const JobSort k = s.ui.sort;
  const bool desc = s.ui.descending;
  std::stable_sort(rows.begin(), rows.end(), [&](const JobInfo* a, const JobInfo* b) {
    if (s.ui.groupByTeam && a->row.job.team != b->row.job.team)
      return a->row.job.team < b->row.job.team;
    return desc ? jobLess(*b, *a, k) : jobLess(*a, *b, k);
  });
  return rows;
}

std::vector<const NodeView*> visibleNodes(const State& s) {
  const Filter f = Filter::parse(s.ui.filter);
  std::vector<const NodeView*> rows;
  for (const NodeView& n : s.data.snapshot.nodes)
    if (f.empty() || f.matches(nodeFields(n))) rows.push_back(&n);
  return rows;
}

std::vector<GpuRef> visibleMigGpus(const State& s) {
  const Filter f = Filter::parse(s.ui.filter);
  std::vector<GpuRef> rows;
  for (const NodeView& n : s.data.snapshot.nodes) {
    if (!f.empty() && !f.matches(nodeFields(n))) continue;
    for (const GpuView& g : n.gpus)
      if (g.sharing == "mig") rows.push_back({&n, &g});
  }
  return rows;
}

std::vector<const Event*> visibleEvents(const State& s) {
  const Filter f = Filter::parse(s.ui.filter);
  std::vector<const Event*> rows;
  for (auto it = s.data.events.rbegin(); it != s.data.events.rend(); ++it) {
    const std::vector<Field> fields{{"job", std::to_string(it->job)},
                                    {"actor", it->actor},
                                    {"state", jobStateName(it->to)},
                                    {"reason", engineText(it->reason)}};
    if (f.empty() || f.matches(fields)) rows.push_back(&*it);
  }
  return rows;
}

std::vector<const TeamView*> visibleTeams(const State& s) {
  const Filter f = Filter::parse(s.ui.filter);
  std::vector<const TeamView*> rows;
  for (const TeamView& t : s.data.snapshot.teams)
    if (f.empty() || f.matches({{"name", t.name}, {"team", t.name}, {"parent", t.parent}}))
      rows.push_back(&t);
  return rows;
}

int rowCount(const State& s) {
  switch (s.ui.view()) {
    case View::Jobs:
    case View::Pending:
    case View::Running:
      return static_cast<int>(visibleJobs(s).size());
    case View::Nodes:
    case View::Gpus:
      return static_cast<int>(visibleNodes(s).size());
    case View::Mig:
      return static_cast<int>(visibleMigGpus(s).size());
    case View::Events:
      return static_cast<int>(visibleEvents(s).size());
    case View::Teams:
      return static_cast<int>(visibleTeams(s).size());
    default:
      return 0;
  }
}

std::optional<JobId> selectedJob(const State& s) {
  if (s.ui.view() == View::JobDetail) return s.ui.detailJob;
  if (s.ui.view() == View::Events) {
    const auto rows = visibleEvents(s);
    if (s.ui.selected < static_cast<int>(rows.size()) &&
        rows[static_cast<size_t>(s.ui.selected)]->job != kNoJob)
      return rows[static_cast<size_t>(s.ui.selected)]->job;
    return std::nullopt;
  }
  if (!isJobList(s.ui.view())) return std::nullopt;
  const auto rows = visibleJobs(s);
  if (s.ui.selected < 0 || s.ui.selected >= static_cast<int>(rows.size())) return std::nullopt;
  return rows[static_cast<size_t>(s.ui.selected)]->row.job.id;
}

std::optional<std::string> selectedNode(const State& s) {
  if (s.ui.view() == View::NodeDetail) return s.ui.detailNode;
  if (s.ui.view() == View::Mig) {
    const auto rows = visibleMigGpus(s);
    if (s.ui.selected < 0 || s.ui.selected >= static_cast<int>(rows.size())) return std::nullopt;
    return rows[static_cast<size_t>(s.ui.selected)].node->name;
  }
  if (s.ui.view() != View::Nodes && s.ui.view() != View::Gpus) return std::nullopt;
  const auto rows = visibleNodes(s);
  if (s.ui.selected < 0 || s.ui.selected >= static_cast<int>(rows.size())) return std::nullopt;
  return rows[static_cast<size_t>(s.ui.selected)]->name;
}

}  // namespace tessera::tui
