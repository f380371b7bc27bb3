#pragma once
// Everything a frame is drawn from: the data last read from the session (snapshot, active jobs,
// the selected job's explanation, the event tail, utilization history) and the operator's place
// in the UI (view stack, filter, selection, sort, prompt). Views are pure functions of this.
#include <chrono>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "glyphs.h"
#include "mig/mig_slices.h"
#include "scheduler/command.h"
#include "service/node_report.h"
#include "service/session.h"

namespace tessera {
class GpuCatalog;
}

namespace tessera::tui {

enum class View : uint8_t {
  Jobs,
  Pending,
  Running,
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
// The views that list jobs: all active, the pending queue, the running queue.
inline bool isJobList(View v) {
  return v == View::Jobs || v == View::Pending || v == View::Running;
}

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

// What the heatmap needs of a GPU beyond the snapshot, worked out once per refresh: the shared
// fragmentation layer's value (service/gpu_fragmentation.h) and, for a GPU in MIG mode, the state
// of each memory slice its model has (empty otherwise, or when the layout cannot be read).
struct GpuDerived {
  double fragmentation = 0;
  std::vector<MigSliceState> slices;
};
// Fills Data::derived from the snapshot and the pending jobs' demand.
struct Data;
void deriveGpus(Data& d, const GpuCatalog& catalog);

// One point of the utilization history: fractions of the cluster's or a pool's GPUs, or a team's
// GPUs (history.h).
struct UtilPoint {
  double allocated = 0;
  double busy = 0;
  double smActive = 0;
};

struct Data {
  ClusterSnapshot snapshot;
  std::vector<JobInfo> jobs;  // pending and running
  std::optional<Explanation> explanation;
  // When `explanation` last came whole (node breakdown, advice) rather than brief (feed.cpp).
  std::chrono::steady_clock::time_point explainedWhole;
  std::deque<Event> events;       // newest last, at most kEventTail
  std::deque<UtilPoint> history;  // newest last, at most kHistory
  // Per team (in GPUs) and per pool (fractions), one point per refresh like `history`.
  std::map<std::string, std::deque<UtilPoint>> teamHistory;
  std::map<std::string, std::deque<UtilPoint>> poolHistory;
  // Indexed like snapshot.nodes and each node's gpus (deriveGpus); may be empty in tests.
  std::vector<std::vector<GpuDerived>> derived;
  // Every node that reported its inventory (ListNodeInventory): the ones awaiting an operator's
  // admission and each node's warnings; empty for a session without inventories (the demo).
  std::vector<NodeInventoryView> inventory;
  std::string source;      // "demo" or the server's address
  std::string connection;  // empty while connected, else why not
  static constexpr size_t kEventTail = 500;
  static constexpr size_t kHistory = 240;
};

struct Ui {
  std::vector<View> stack{View::Jobs};
  Mode mode = Mode::Normal;
  std::string input;    // what is typed after ':' or '/', or into a prompt
  std::string filter;   // the applied filter of the current list
  int selected = 0;     // row in the current list (the heatmap: the node)
  int selectedGpu = 0;  // the heatmap: the GPU of the selected node
  int width = 80;       // the terminal's: the heatmap's lines, for moving up and down
  JobSort sort = JobSort::Id;
  bool descending = false;
  bool groupByTeam = false;
  HeatLayer layer = HeatLayer::Allocation;
  bool readonly = false;
  JobId detailJob = kNoJob;
  std::string detailNode;
  std::optional<int> detailGpu;        // the heatmap's GPU that Enter opened the node from (marked)
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
