#include "controller.h"

#include <algorithm>

#include "heatmap_nav.h"
#include "render.h"
#include "rows.h"
#include "text.h"

namespace tessera::tui {

namespace {

constexpr int kPage = 10;

bool isList(View v) {
  return v != View::JobDetail && v != View::NodeDetail && v != View::Help;
}

void moveSelection(State& s, int delta) {
  const int n = rowCount(s);
  s.ui.selected = n == 0 ? 0 : std::clamp(s.ui.selected + delta, 0, n - 1);
  if (s.ui.view() == View::Gpus) clampSelectedGpu(s);
}

void openView(State& s, View v) {
  s.ui.stack = {v};
  s.ui.filter.clear();
  s.ui.selected = 0;
  s.ui.selectedGpu = 0;
}

void push(State& s, View v) {
  s.ui.stack.push_back(v);
}

void back(State& s) {
  if (!s.ui.filter.empty()) {
    s.ui.filter.clear();
    s.ui.selected = 0;
  } else if (s.ui.stack.size() > 1) {
    s.ui.stack.pop_back();
  }
}

// `:VIEW [FILTER]`: k9s users type `:jobs team=vision` to switch and filter in one go.
void runCommandLine(State& s, std::vector<Request>& out) {
  const std::string line = s.ui.input;
  s.ui.mode = Mode::Normal;
  s.ui.input.clear();
  const size_t space = line.find(' ');
  const std::string cmd = line.substr(0, space);
  const std::string filter = space == std::string::npos
                                 ? std::string()
                                 : str(QString::fromStdString(line.substr(space + 1)).trimmed());
  if (cmd == "q" || cmd == "quit" || cmd == "q!") {
    out.push_back({Request::Kind::Quit});
  } else if (auto v = viewFromCommand(cmd)) {
    openView(s, *v);
    if (isList(*v)) s.ui.filter = filter;
    out.push_back({Request::Kind::Refresh});
  } else if (!cmd.empty()) {
    s.ui.message = str(Top::tr("unknown view: %1").arg(QString::fromStdString(cmd)));
  }
}

void drillDown(State& s, std::vector<Request>& out) {
  if (auto job = selectedJob(s); job && s.ui.view() != View::JobDetail) {
    s.ui.detailJob = *job;
    push(s, View::JobDetail);
    out.push_back({Request::Kind::Explain, *job});
  } else if (auto node = selectedNode(s); node && s.ui.view() != View::NodeDetail) {
    s.ui.detailNode = *node;
    s.ui.detailGpu = s.ui.view() == View::Gpus ? std::optional(s.ui.selectedGpu) : std::nullopt;
    push(s, View::NodeDetail);
  }
}

// The prompt of an action that needs a value; empty for those that need none.
QString promptOf(Action a) {
  switch (a) {
    case Action::SetPriority:
      return Top::tr("Priority class:");
    case Action::PinNode:
      return Top::tr("Pin to node:");
    case Action::Drain:
      return Top::tr("Drain reason:");
    default:
      return {};
  }
}

void startAction(State& s, Action a, std::vector<Request>& out) {
  if (s.ui.readonly) {
    s.ui.message = str(Top::tr("read-only: actions are off"));
    return;
  }
  const QString prompt = promptOf(a);
  if (!prompt.isEmpty()) {
    if (!commandFor(s, a, "x")) return;  // nothing selected it applies to
    s.ui.mode = Mode::Prompt;
    s.ui.promptAction = a;
    s.ui.input.clear();
    s.ui.message = str(prompt);
    return;
  }
  if (auto c = commandFor(s, a, {})) out.push_back({Request::Kind::DryRun, kNoJob, *c});
}

void editLine(State& s, char32_t key) {
  if (key == kKeyBackspace) {
    // Remove one code point (UTF-8 continuation bytes go with it).
    while (!s.ui.input.empty() && (static_cast<unsigned char>(s.ui.input.back()) & 0xC0) == 0x80)
      s.ui.input.pop_back();
    if (!s.ui.input.empty()) s.ui.input.pop_back();
  } else if (key >= 0x20 && key < kKeyUp) {
    appendUtf8(s.ui.input, key);
  }
}

std::vector<Request> onLineKey(State& s, char32_t key) {
  std::vector<Request> out;
  if (key == kKeyEscape) {
    if (s.ui.mode == Mode::Filter) s.ui.filter.clear();
    s.ui.mode = Mode::Normal;
    s.ui.input.clear();
    s.ui.message.clear();
    return out;
  }
  if (key == kKeyEnter) {
    if (s.ui.mode == Mode::Command) runCommandLine(s, out);
    if (s.ui.mode == Mode::Filter) s.ui.mode = Mode::Normal;
    if (s.ui.mode == Mode::Prompt) {
      s.ui.mode = Mode::Normal;
      s.ui.message.clear();
      if (auto c = commandFor(s, s.ui.promptAction, s.ui.input))
        out.push_back({Request::Kind::DryRun, kNoJob, *c});
      s.ui.input.clear();
    }
    return out;
  }
  editLine(s, key);
  // The filter narrows as it is typed, as k9s does.
  if (s.ui.mode == Mode::Filter) {
    s.ui.filter = s.ui.input;
    s.ui.selected = 0;
  }
  return out;
}

std::vector<Request> onConfirmKey(State& s, char32_t key) {
  std::vector<Request> out;
  if (key == U'y' || key == U'Y') {
    if (s.ui.confirm && s.ui.confirm->error.empty())
      out.push_back({Request::Kind::Apply, kNoJob, s.ui.confirm->command});
  } else if (key != U'n' && key != U'N' && key != kKeyEscape) {
    return out;  // only a clear answer closes the box
  }
  s.ui.mode = Mode::Normal;
  s.ui.confirm.reset();
  return out;
}

std::optional<Action> actionOf(char32_t key) {
  switch (key) {
    case U'h':
      return Action::Hold;
    case U'r':
      return Action::Release;
    case U'p':
      return Action::Preempt;
    case U'x':
      return Action::Cancel;
    case U'P':
      return Action::SetPriority;
    case U't':
      return Action::MoveTop;
    case U'b':
      return Action::MoveBottom;
    case U'n':
      return Action::PinNode;
    case U'd':
      return Action::Drain;
    case U'u':
      return Action::Undrain;
    default:
      return std::nullopt;
  }
}

bool onNavigationKey(State& s, char32_t key) {
  const int page = std::max(1, kPage);
  switch (key) {
    case kKeyUp:
    case U'k':
      moveSelection(s, -1);
      return true;
    case kKeyDown:
    case U'j':
      moveSelection(s, 1);
      return true;
    case kKeyPageUp:
      moveSelection(s, -page);
      return true;
    case kKeyPageDown:
      moveSelection(s, page);
      return true;
    case kKeyHome:
      s.ui.selected = 0;
      return true;
    case kKeyEnd:
      moveSelection(s, 1 << 20);
      return true;
    default:
      return false;
  }
}

void cycleSort(State& s, bool reverse) {
  if (reverse)
    s.ui.descending = !s.ui.descending;
  else
    s.ui.sort = static_cast<JobSort>((static_cast<int>(s.ui.sort) + 1) % kJobSortCount);
}

}  // namespace

std::vector<Request> onKey(State& s, char32_t key) {
  if (s.ui.mode == Mode::Confirm) return onConfirmKey(s, key);
  if (s.ui.mode != Mode::Normal) return onLineKey(s, key);
  s.ui.message.clear();
  std::vector<Request> out;
  const View v = s.ui.view();
  if (v == View::Gpus && onHeatmapKey(s, key)) return out;
  if (onNavigationKey(s, key)) return out;
  switch (key) {
    case U'q':
      out.push_back({Request::Kind::Quit});
      return out;
    case U':':
      s.ui.mode = Mode::Command, s.ui.input.clear();
      return out;
    case U'/':
      if (isList(v)) s.ui.mode = Mode::Filter, s.ui.input = s.ui.filter;
      return out;
    case U'?':
      if (v != View::Help) push(s, View::Help);
      return out;
    case kKeyEscape:
      back(s);
      return out;
    case kKeyEnter:
      drillDown(s, out);
      return out;
    case U's':
    case U'S':
      cycleSort(s, key == U'S');
      return out;
    case U'g':
      s.ui.groupByTeam = !s.ui.groupByTeam;
      return out;
    case U'L':
    case kKeyTab:
      s.ui.layer = static_cast<HeatLayer>((static_cast<int>(s.ui.layer) + 1) % kHeatLayerCount);
      return out;
    default:
      break;
  }
  if (auto a = actionOf(key)) startAction(s, *a, out);
  return out;
}

std::optional<Command> commandFor(const State& s, Action a, const std::string& value) {
  const auto job = selectedJob(s);
  const auto node = selectedNode(s);
  switch (a) {
    case Action::Hold:
      if (job) return cmd::Hold{*job};
      break;
    case Action::Release:
      if (job) return cmd::Release{*job};
      break;
    case Action::Preempt:
      if (job) return cmd::Preempt{*job};
      break;
    case Action::Cancel:
      if (job) return cmd::Cancel{*job};
      break;
    case Action::SetPriority:
      if (job) return cmd::SetPriority{*job, value};
      break;
    case Action::MoveTop:
      if (job) return cmd::Move{*job, cmd::Move::To::Top};
      break;
    case Action::MoveBottom:
      if (job) return cmd::Move{*job, cmd::Move::To::Bottom};
      break;
    case Action::PinNode:
      if (job) return cmd::Pin{*job, {}, {value}};
      break;
    case Action::Drain:
      if (node) return cmd::Drain{*node, literal(value)};
      break;
    case Action::Undrain:
      if (node) return cmd::Undrain{*node};
      break;
  }
  return std::nullopt;
}

void replaceData(State& s, Data data) {
  const auto job = selectedJob(s);
  const auto node = selectedNode(s);
  const View v = s.ui.view();
  s.data = std::move(data);
  if (isJobList(v)) {
    const auto rows = visibleJobs(s);
    for (size_t i = 0; job && i < rows.size(); ++i)
      if (rows[i]->row.job.id == *job) s.ui.selected = static_cast<int>(i);
  } else if (v == View::Nodes || v == View::Gpus) {
    const auto rows = visibleNodes(s);
    for (size_t i = 0; node && i < rows.size(); ++i)
      if (rows[i]->name == *node) s.ui.selected = static_cast<int>(i);
  }
  moveSelection(s, 0);
}

void showDryRun(State& s, const Command& c, std::variant<CommandResult, ApiError> result) {
  Confirmation box{c, engineText(describeText(c)), std::nullopt, {}};
  if (auto* e = std::get_if<ApiError>(&result))
    box.error = e->text.empty() ? e->message : engineText(e->text);
  else
    box.impact = std::get<CommandResult>(result).impact;
  s.ui.confirm = std::move(box);
  s.ui.mode = Mode::Confirm;
}

void showApplied(State& s, const Command& c, const std::variant<CommandResult, ApiError>& result) {
  if (const auto* e = std::get_if<ApiError>(&result)) {
    s.ui.message =
        str(Top::tr("refused: %1")
                .arg(QString::fromStdString(e->text.empty() ? e->message : engineText(e->text))));
    return;
  }
  const auto& r = std::get<CommandResult>(result);
  s.ui.message = str(Top::tr("done: %1").arg(QString::fromStdString(engineText(describeText(c))))) +
                 (r.message.empty() ? "" : " - " + engineText(r.message));
}

}  // namespace tessera::tui
