#include "slurm/squeue_text.h"

#include <charconv>

#include "core/hostlist.h"
#include "core/strings.h"

namespace tessera::slurm {

namespace {

Error lineError(int line, const std::string& why) {
  return Error{why, {"squeue output", line, 0, ""}};
}

bool parseInt64(std::string_view s, int64_t& out) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

Expected<JobGlance> parseLine(std::string_view text, int line) {
  const std::vector<std::string_view> f = split(text, '|');
  if (f.size() != 5)
    return lineError(line, "expected 5 '|'-separated fields, found " + std::to_string(f.size()));
  JobGlance g;
  // An array task that squeue did not split ("123_[1-4]") is no single job id either.
  if (!parseInt64(trim(f[0]), g.id) || g.id <= 0)
    return lineError(line, "job id '" + std::string(f[0]) + "' is not a positive number");
  g.stateText = std::string(trim(f[1]));
  if (g.stateText.empty()) return lineError(line, "job " + std::to_string(g.id) + " has no state");
  g.state = jobStateFromSlurm(g.stateText);
  g.reason = std::string(trim(f[2]));
  if (!parseInt64(trim(f[3]), g.priority))
    return lineError(line, "priority '" + std::string(f[3]) + "' of job " + std::to_string(g.id) +
                               " is not a number");
  const std::string_view nodes = trim(f[4]);
  if (!nodes.empty() && nodes != "(null)") {
    auto expanded = expandHostlist(nodes);
    if (!expanded)
      return lineError(line, "node list '" + std::string(nodes) + "' of job " +
                                 std::to_string(g.id) + ": " + expanded.error().message);
    g.nodes = std::move(*expanded);
  }
  return g;
}

}  // namespace

Expected<std::vector<JobGlance>> parseJobGlances(std::string_view text) {
  std::vector<JobGlance> out;
  int line = 0;
  for (std::string_view l : split(text, '\n')) {
    ++line;
    if (trim(l).empty()) continue;
    TESSERA_TRY(g, parseLine(l, line));
    out.push_back(std::move(g));
  }
  return out;
}

}  // namespace tessera::slurm
