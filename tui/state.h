#pragma once
// Everything a frame is drawn from: the data last read from the session (snapshot, active jobs,
// the selected job's explanation, the event tail, utilization history) and the operator's place
// in the UI (view stack, filter, selection, sort, prompt). Views are pure functions of this.
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "glyphs.h"
#include "scheduler/command.h"
#include "service/session.h"

namespace tessera::tui {

enum class View : uint8_t {
  Jobs,
  Pending,
  Nodes,
  Gpus,
  Mig,
  Events,
  Teams,
  JobDetail,
  NodeDetail,
  Help
};
// The `:` names of the top-level views ("jobs" ...); empty for the drill-down views.
const char* viewCommand(View v);
std::optional<View> viewFromCommand(std::string_view name);

// The desktop heatmap's layers.
enum class HeatLayer : uint8_t {
  Allocation,
  Utilization,
  SmActive,
  IdleGap,
  Fragmentation,
  Health
};
inline constexpr int kHeatLayerCount = 6;

enum class JobSort : uint8_t { Id, Name, Team, Priority, State, Gpus, Age, Position };
inline constexpr int kJobSortCount = 8;

// What the bottom line is doing.
enum class Mode : uint8_t { Normal, Command, Filter, Prompt, Confirm };

// An operator action, before it becomes a Command.
enum class Action : uint8_t {
  Hold,
  Release,
  Preempt,
  Cancel,
  SetPriority,
  MoveTop,
  MoveBottom,
  PinNode,
  Drain,
  Undrain
};

// A command waiting for the operator's yes, with the engine's dry-run answer.
struct Confirmation {
  Command command;
  std::string description;  // describe(command)
  std::optional<Impact> impact;
  std::string error;  // the dry run's refusal
};

// One point of the utilization history (fractions of all GPUs).
struct UtilPoint {
  double allocated = 0;
  double busy = 0;
  double smActive = 0;
};

struct Data {
  ClusterSnapshot snapshot;
  std::vector<JobInfo> jobs;  // pending and running
  std::optional<Explanation> explanation;
  std::deque<Event> events;       // newest last, at most kEventTail
  std::deque<UtilPoint> history;  // newest last, at most kHistory
  // GPUs in use per team, one value per refresh like `history`.
  std::map<std::string, std::deque<double>> teamHistory;
  // Fraction of each pool's GPUs allocated, one value per refresh.
  std::map<std::string, std::deque<double>> poolHistory;
  std::string source;      // "demo" or the server's address
  std::string connection;  // empty while connected, else why not
  static constexpr size_t kEventTail = 500;
  static constexpr size_t kHistory = 240;
};

struct Ui {
  std::vector<View> stack{View::Jobs};
  Mode mode = Mode::Normal;
  std::string input;   // what is typed after ':' or '/', or into a prompt
  std::string filter;  // the applied filter of the current list
  int selected = 0;    // row in the current list
  JobSort sort = JobSort::Id;
  bool descending = false;
  bool groupByTeam = false;
  HeatLayer layer = HeatLayer::Allocation;
  bool readonly = false;
  JobId detailJob = kNoJob;
  std::string detailNode;
  Action promptAction = Action::Hold;  // the action a prompt collects a value for
  std::optional<Confirmation> confirm;
  std::string message;  // the last outcome or error, shown until the next key
  [[nodiscard]] View view() const { return stack.back(); }
};

struct State {
  Data data;
  Ui ui;
  const Glyphs* glyphs = &unicodeGlyphs();
};

}  // namespace tessera::tui
