// The value helpers of slurm_json.h that need no JSON: states, wait statuses, gres strings.
#include <algorithm>
#include <array>
#include <utility>

#include "core/hostlist.h"
#include "core/strings.h"
#include "slurm/slurm_json.h"

namespace tessera::slurm {

namespace {

constexpr std::array<std::pair<std::string_view, JobState>, 13> kJobStates{{
    {"PENDING", JobState::Pending},
    {"RUNNING", JobState::Running},
    {"SUSPENDED", JobState::Suspended},
    {"COMPLETING", JobState::Completing},
    {"COMPLETED", JobState::Completed},
    {"FAILED", JobState::Failed},
    {"CANCELLED", JobState::Cancelled},
    {"TIMEOUT", JobState::Timeout},
    {"NODE_FAIL", JobState::NodeFail},
    {"OUT_OF_MEMORY", JobState::OutOfMemory},
    {"PREEMPTED", JobState::Preempted},
    {"OTHER", JobState::Other},
    // squeue prints "CONFIGURING" for a job whose nodes boot; for Tessera that is still pending.
    {"CONFIGURING", JobState::Pending},
}};

constexpr std::array<std::pair<std::string_view, NodeState>, 8> kNodeStates{{
    {"idle", NodeState::Idle},
    {"mixed", NodeState::Mixed},
    {"allocated", NodeState::Allocated},
    {"completing", NodeState::Completing},
    {"down", NodeState::Down},
    {"error", NodeState::Error},
    {"future", NodeState::Future},
    {"other", NodeState::Other},
}};

Error gresError(std::string_view text, const std::string& why) {
  return Error{"gres '" + std::string(text) + "': " + why, {}};
}

// Splits at commas outside parentheses: "gpu:a:3(IDX:0-1,3),gpu:b:0(IDX:N/A)".
std::vector<std::string_view> topLevelItems(std::string_view text) {
  std::vector<std::string_view> items;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] == '(') ++depth;
    if (i < text.size() && text[i] == ')') --depth;
    if (i == text.size() || (text[i] == ',' && depth == 0)) {
      auto item = trim(text.substr(start, i - start));
      if (!item.empty()) items.push_back(item);
      start = i + 1;
    }
  }
  return items;
}

bool emptyGres(std::string_view text) {
  text = trim(text);
  return text.empty() || text == "N/A" || text == "(null)";
}

// "gpu:h100:4" / "gpu:4" / "gpu" (count 1), without any "(...)" note.
Expected<GresCount> parseOneGres(std::string_view whole, std::string_view item) {
  for (std::string_view prefix : {"gres:", "gres/"})
    if (item.substr(0, prefix.size()) == prefix) item.remove_prefix(prefix.size());
  auto parts = split(item, ':');
  GresCount g;
  g.name = std::string(trim(parts[0]));
  if (g.name.empty()) return gresError(whole, "empty name");
  if (parts.size() == 1) {
    g.count = 1;
    return g;
  }
  auto count = parseInt(trim(parts.back()));
  if (!count || *count < 0 || parts.size() > 3)
    return gresError(whole, "expected name[:type]:count in '" + std::string(item) + "'");
  g.count = *count;
  if (parts.size() == 3) g.type = std::string(trim(parts[1]));
  return g;
}

}  // namespace

std::string_view slurmWord(JobState state) {
  for (const auto& [word, s] : kJobStates)
    if (s == state) return word;
  return "OTHER";
}

JobState jobStateFromSlurm(std::string_view word) {
  const std::string upper = [&] {
    std::string u(trim(word));
    std::transform(u.begin(), u.end(), u.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return u;
  }();
  for (const auto& [w, s] : kJobStates)
    if (w == upper) return s;
  return JobState::Other;
}

bool isFinished(JobState state) {
  return state != JobState::Pending && state != JobState::Running && state != JobState::Suspended &&
         state != JobState::Completing;
}

std::string_view slurmWord(NodeState state) {
  for (const auto& [word, s] : kNodeStates)
    if (s == state) return word;
  return "other";
}

NodeState nodeStateFromSlurm(std::string_view word) {
  const std::string lower = toLower(trim(word));
  for (const auto& [w, s] : kNodeStates)
    if (w == lower) return s;
  return NodeState::Other;
}

// Linux wait status: exit code in bits 8-15, terminating signal in bits 0-6.
ExitStatus decodeWaitStatus(int64_t raw) {
  const auto status = static_cast<uint32_t>(raw);
  return ExitStatus{static_cast<int>((status >> 8) & 0xff), static_cast<int>(status & 0x7f)};
}

Expected<std::vector<GresCount>> parseGresList(std::string_view text) {
  std::vector<GresCount> out;
  if (emptyGres(text)) return out;
  for (auto item : topLevelItems(text)) {
    TESSERA_TRY(g, parseOneGres(text, item.substr(0, item.find('('))));
    out.push_back(std::move(g));
  }
  return out;
}

Expected<std::vector<GresUse>> parseGresUsed(std::string_view text) {
  std::vector<GresUse> out;
  if (emptyGres(text)) return out;
  for (auto item : topLevelItems(text)) {
    const size_t open = item.find('(');
    TESSERA_TRY(g, parseOneGres(text, item.substr(0, open)));
    GresUse use{std::move(g), {}};
    if (open != std::string_view::npos) {
      const size_t idx = item.find("IDX:", open);
      const size_t close = item.find(')', open);
      if (close == std::string_view::npos) return gresError(text, "missing ')'");
      if (idx != std::string_view::npos && idx < close) {
        const auto list = item.substr(idx + 4, close - idx - 4);
        if (list != "N/A" && !list.empty()) {
          TESSERA_TRY(indices, expandIndexList(list, 1 << 16));
          use.indices = std::move(indices);
        }
      }
    }
    out.push_back(std::move(use));
  }
  return out;
}

std::optional<std::string> tesseraIdFromComment(std::string_view comment) {
  if (comment.substr(0, kTesseraTag.size()) != kTesseraTag) return std::nullopt;
  comment.remove_prefix(kTesseraTag.size());
  if (comment.empty()) return std::nullopt;
  return std::string(comment);
}

bool isHeld(int64_t priority, std::string_view reason) {
  return priority == 0 &&
         (reason.substr(0, 7) == "JobHeld" || reason == "job_requeued_in_held_state" ||
          reason == "job requeued in held state");
}

bool SlurmNode::hasFlag(std::string_view flag) const {
  return std::find(flags.begin(), flags.end(), flag) != flags.end();
}

bool SlurmNode::draining() const {
  return hasFlag("DRAIN") && (state == NodeState::Mixed || state == NodeState::Allocated ||
                              state == NodeState::Completing);
}

bool SlurmNode::drained() const {
  return (hasFlag("DRAIN") || hasFlag("DRAINED")) && !draining();
}

bool SlurmMeta::knownVersion() const {
  return pluginType == kKnownPlugin;
}

}  // namespace tessera::slurm
