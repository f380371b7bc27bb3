// The terminal console's parts without a terminal: the screen model's cells (display width of
// wide characters, clipping, ASCII fallback), filters, column fitting, the diff the writer
// rewrites, colour-mode detection and the key grammar with its actions (dry run first, then the
// confirmation's yes; nothing in read-only mode). Expected values are written here by hand.
#include <QtTest>

#include <algorithm>
#include <clocale>

#include "topology/gpu_catalog.h"
#include "tui/colors.h"
#include "tui/controller.h"
#include "tui/draw.h"
#include "tui/heatmap_layout.h"
#include "tui/history.h"
#include "tui/render.h"
#include "tui/rows.h"
#include "tui/terminal.h"
#include "tui/views.h"

using namespace tessera;
using namespace tessera::tui;

namespace {

JobInfo job(JobId id, const std::string& name, const std::string& team, JobState st) {
  JobInfo j;
  j.row.job.id = id;
  j.row.job.name = name;
  j.row.job.team = team;
  j.row.job.perTask.kind = GpuRequest::Kind::Whole;
  j.row.job.perTask.gpus = 1;
  j.row.state = st;
  return j;
}

NodeView node(const std::string& name, const std::string& state = "up") {
  NodeView n;
  n.name = name;
  n.state = state;
  n.leaf = "leaf-1";
  n.spine = "spine-1";
  for (int i = 0; i < 4; ++i) {
    GpuView g;
    g.index = i;
    g.sharing = "exclusive";
    n.gpus.push_back(g);
  }
  return n;
}

State sample() {
  State s;
  s.data.jobs = {job(1, "llm-train", "llm", JobState::Running),
                 job(2, "vit", "vision", JobState::Pending),
                 job(3, "llm-eval", "llm", JobState::Pending)};
  s.data.snapshot.nodes = {node("a1"), node("a2", "draining"), node("b1")};
  return s;
}

GpuView migGpu(int index, const std::string& model, const std::string& layout) {
  GpuView g;
  g.index = index;
  g.model = model;
  g.sharing = "mig";
  g.migLayout = layout;
  return g;
}

GpuView::Occupant occupant(JobId job, int milli, const std::string& team) {
  return {job, milli, "", team, -1};
}

// The cells drawn with the selection's role: the selected node's name and its selected GPU.
std::vector<std::pair<int, int>> selectedCells(const Screen& scr) {
  std::vector<std::pair<int, int>> out;
  for (int y = 2; y < scr.height() - 2; ++y)
    for (int x = 0; x < scr.width(); ++x)
      if (scr.at(x, y).role == Role::Selected) out.emplace_back(x, y);
  return out;
}

void type(State& s, const std::string& keys) {
  for (char c : keys) onKey(s, static_cast<char32_t>(c));
}

}  // namespace

class TstTuiModel : public QObject {
  Q_OBJECT

 private slots:
  void initTestCase() { std::setlocale(LC_ALL, "C.UTF-8"); }

  // A CJK character takes two columns; the cell after it is its continuation.
  void wideCharacters() {
    Screen scr(10, 1);
    QCOMPARE(scr.put(0, 0, "队列ab", Role::Normal), 6);
    QCOMPARE(scr.at(0, 0).width, uint8_t{2});
    QCOMPARE(scr.at(1, 0).width, uint8_t{0});
    QCOMPARE(scr.at(4, 0).ch, U'a');
    QCOMPARE(scr.rowText(0), std::string("队列ab    "));
    QCOMPARE(textWidth("队列ab"), 6);
  }

  // A wide character that would be cut in half at a limit becomes a space, never half a glyph.
  void wideCharacterAtTheEdge() {
    Screen scr(5, 1);
    QCOMPARE(scr.put(0, 0, "abc队", Role::Normal, 4), 4);
    QCOMPARE(scr.rowText(0), std::string("abc  "));
    Screen edge(4, 1);
    edge.put(3, 0, "队", Role::Normal);
    QCOMPARE(edge.rowText(0), std::string("    "));
    // Overwriting the second half of a wide character blanks its first half.
    Screen over(4, 1);
    over.put(0, 0, "队", Role::Normal);
    over.put(1, 0, "x", Role::Normal);
    QCOMPARE(over.rowText(0), std::string(" x  "));
  }

  void asciiFallback() {
    Screen scr(6, 1, true);
    scr.put(0, 0, "ü█x", Role::Normal);
    QCOMPARE(scr.rowText(0), std::string("??x   "));
  }

  void dumpHasRoles() {
    Screen scr(3, 1);
    scr.put(0, 0, "ok", Role::Bad);
    QCOMPARE(scr.dump(), std::string("ok \n--- roles\nrr.\n"));
  }

  void filters() {
    const State s = sample();
    const auto fields = jobFields(s.data.jobs[0]);
    QVERIFY(Filter::parse("llm").matches(fields));
    QVERIFY(Filter::parse("LLM train").matches(fields));
    QVERIFY(!Filter::parse("llm vit").matches(fields));
    QVERIFY(Filter::parse("team=llm state=run").matches(fields));
    QVERIFY(!Filter::parse("team=vision").matches(fields));
    QVERIFY(!Filter::parse("colour=blue").matches(fields));  // an unknown key matches nothing
  }

  // The least important columns go first; the flexible one takes what is left.
  void columnsDropOnNarrowTerminals() {
    const std::vector<Column> cols{{"ID", 4, true, 10},
                                   {"NAME", 10, false, 9},
                                   {"CLASS", 10, false, 1},
                                   {"REASON", 10, false, 5, true}};
    const Fitted wide = fitColumns(cols, 60);
    QCOMPARE(wide.shown, (std::vector<size_t>{0, 1, 2, 3}));
    QCOMPARE(wide.widths.back(), 60 - 4 - 10 - 10 - 3);
    const Fitted narrow = fitColumns(cols, 30);
    QCOMPARE(narrow.shown, (std::vector<size_t>{0, 1, 3}));
  }

  // Only what changed is rewritten; a resize rewrites everything.
  void changedRunsOnly() {
    Screen a(10, 3), b(10, 3);
    a.put(0, 1, "hello", Role::Normal);
    b.put(0, 1, "hallo", Role::Normal);
    QCOMPARE(changedRuns(&a, b), (std::vector<Run>{{1, 1, 1}}));
    QVERIFY(changedRuns(&a, a).empty());
    QCOMPARE(changedRuns(nullptr, b).size(), size_t{3});
    const Screen c(12, 3);
    QCOMPARE(changedRuns(&a, c).size(), size_t{3});
    // A role change is a change too.
    Screen d = a;
    d.paintRow(2, Role::Selected);
    QCOMPARE(changedRuns(&a, d), (std::vector<Run>{{0, 2, 10}}));
  }

  void colourModes() {
    QCOMPARE(detectColorMode(true, 256, ""), ColorMode::Mono);  // NO_COLOR wins
    QCOMPARE(detectColorMode(false, 2, ""), ColorMode::Mono);
    QCOMPARE(detectColorMode(false, 8, ""), ColorMode::Color8);
    QCOMPARE(detectColorMode(false, 256, "truecolor"), ColorMode::Color256);
    QCOMPARE(detectColorMode(false, 1 << 24, "truecolor"), ColorMode::TrueColor);
    // Monochrome keeps the selection and headers visible through attributes.
    QVERIFY(roleStyle(Role::Selected, ColorMode::Mono).reverse);
    QVERIFY(roleStyle(Role::Header, ColorMode::Mono).bold);
    QVERIFY(!roleStyle(Role::Ok, ColorMode::Mono).fg);
    QCOMPARE(to256({255, 0, 0}), 196);
    QCOMPARE(to8({0, 200, 0}), 2);
  }

  void unicodeOrAscii() {
    QVERIFY(wantUnicode("UTF-8", "xterm-256color"));
    QVERIFY(!wantUnicode("ANSI_X3.4-1968", "xterm-256color"));  // LANG=C
    QVERIFY(!wantUnicode("UTF-8", "vt100"));
  }

  void viewsSwitchWithColon() {
    State s = sample();
    type(s, ":nodes");
    QCOMPARE(s.ui.mode, Mode::Command);
    onKey(s, kKeyEnter);
    QCOMPARE(s.ui.view(), View::Nodes);
    type(s, ":pe");
    onKey(s, kKeyEnter);
    QCOMPARE(s.ui.view(), View::Pending);
    type(s, ":nonsense");
    onKey(s, kKeyEnter);
    QCOMPARE(s.ui.view(), View::Pending);
    QVERIFY(!s.ui.message.empty());
  }

  // The running queue beside the pending one.
  void runningView() {
    State s = sample();
    type(s, ":running");
    onKey(s, kKeyEnter);
    QCOMPARE(s.ui.view(), View::Running);
    QCOMPARE(rowCount(s), 1);
    QCOMPARE(*selectedJob(s), JobId{1});
    QVERIFY(render(s, 80, 24).dump(false).find("<Running>") != std::string::npos);
  }

  // `:VIEW FILTER` switches and filters in one line, as in k9s; a bare `:VIEW` clears the filter.
  void colonTakesAnInlineFilter() {
    State s = sample();
    type(s, ":pending team=vision ");
    onKey(s, kKeyEnter);
    QCOMPARE(s.ui.view(), View::Pending);
    QCOMPARE(s.ui.filter, std::string("team=vision"));
    QCOMPARE(rowCount(s), 1);
    QCOMPARE(*selectedJob(s), JobId{2});
    type(s, ":jobs llm");
    onKey(s, kKeyEnter);
    QCOMPARE(s.ui.view(), View::Jobs);
    QCOMPARE(rowCount(s), 2);
    type(s, ":jobs");
    onKey(s, kKeyEnter);
    QCOMPARE(rowCount(s), 3);
  }

  void filterNarrowsAsTyped() {
    State s = sample();
    QCOMPARE(rowCount(s), 3);
    type(s, "/llm");
    QCOMPARE(rowCount(s), 2);
    type(s, " state=pend");
    QCOMPARE(rowCount(s), 1);
    onKey(s, kKeyEnter);
    QCOMPARE(s.ui.mode, Mode::Normal);
    QCOMPARE(rowCount(s), 1);
    onKey(s, kKeyEscape);  // Esc clears the filter first
    QCOMPARE(rowCount(s), 3);
  }

  void enterDrillsDownAndEscGoesBack() {
    State s = sample();
    onKey(s, kKeyDown);
    const auto requests = onKey(s, kKeyEnter);
    QCOMPARE(s.ui.view(), View::JobDetail);
    QCOMPARE(s.ui.detailJob, JobId{2});
    QCOMPARE(requests.size(), size_t{1});
    QCOMPARE(requests[0].kind, Request::Kind::Explain);
    onKey(s, kKeyEscape);
    QCOMPARE(s.ui.view(), View::Jobs);
    type(s, ":nodes");
    onKey(s, kKeyEnter);
    onKey(s, kKeyDown);
    onKey(s, kKeyEnter);
    QCOMPARE(s.ui.view(), View::NodeDetail);
    QCOMPARE(s.ui.detailNode, std::string("a2"));
  }

  // An action asks for a dry run; its answer opens the confirmation; y applies, n does not.
  void actionsGoThroughADryRun() {
    State s = sample();
    onKey(s, kKeyDown);
    auto r = onKey(s, U'h');
    QCOMPARE(r.size(), size_t{1});
    QCOMPARE(r[0].kind, Request::Kind::DryRun);
    QCOMPARE(std::get<cmd::Hold>(r[0].command).job, JobId{2});
    CommandResult predicted;
    predicted.impact.started = {3};
    showDryRun(s, r[0].command, predicted);
    QCOMPARE(s.ui.mode, Mode::Confirm);
    QVERIFY(render(s, 80, 24).dump(false).find("starts: 3") != std::string::npos);
    QVERIFY(onKey(s, U'j').empty());  // only y or n answers
    r = onKey(s, U'y');
    QCOMPARE(r.size(), size_t{1});
    QCOMPARE(r[0].kind, Request::Kind::Apply);
    QCOMPARE(s.ui.mode, Mode::Normal);
    onKey(s, U'x');
    showDryRun(s, cmd::Cancel{2}, CommandResult{});
    QVERIFY(onKey(s, U'n').empty());
    QCOMPARE(s.ui.mode, Mode::Normal);
  }

  // A refused dry run shows why and cannot be applied.
  void refusedDryRun() {
    State s = sample();
    showDryRun(s, cmd::Release{1},
               ApiError{ErrorKind::FailedPrecondition, "job 1 is not held", {}});
    QVERIFY(render(s, 80, 24).dump(false).find("job 1 is not held") != std::string::npos);
    QVERIFY(onKey(s, U'y').empty());
  }

  void promptsCollectAValue() {
    State s = sample();
    type(s, ":nodes");
    onKey(s, kKeyEnter);
    onKey(s, U'd');
    QCOMPARE(s.ui.mode, Mode::Prompt);
    type(s, "psu swap");
    const auto r = onKey(s, kKeyEnter);
    QCOMPARE(r.size(), size_t{1});
    const auto& drain = std::get<cmd::Drain>(r[0].command);
    QCOMPARE(drain.node, std::string("a1"));
    QCOMPARE(drain.reason.english(), std::string("psu swap"));
    onKey(s, U'u');
  }

  void everyActionBuildsItsCommand() {
    State s = sample();
    QVERIFY(std::holds_alternative<cmd::Release>(*commandFor(s, Action::Release, {})));
    QVERIFY(std::holds_alternative<cmd::Preempt>(*commandFor(s, Action::Preempt, {})));
    QVERIFY(std::holds_alternative<cmd::Cancel>(*commandFor(s, Action::Cancel, {})));
    QCOMPARE(std::get<cmd::SetPriority>(*commandFor(s, Action::SetPriority, "spot")).priorityClass,
             std::string("spot"));
    QCOMPARE(std::get<cmd::Move>(*commandFor(s, Action::MoveBottom, {})).to, cmd::Move::To::Bottom);
    QCOMPARE(std::get<cmd::Pin>(*commandFor(s, Action::PinNode, "b1")).nodes,
             std::vector<std::string>{"b1"});
    QVERIFY(!commandFor(s, Action::Drain, "x"));  // no node selected in the jobs view
  }

  void readonlyHidesActions() {
    State s = sample();
    s.ui.readonly = true;
    QVERIFY(onKey(s, U'h').empty());
    QCOMPARE(s.ui.mode, Mode::Normal);
    const std::string screen = render(s, 120, 24).dump(false);
    QVERIFY(screen.find("hold") == std::string::npos);
    QVERIFY(screen.find("read-only") != std::string::npos);
    s.ui.readonly = false;
    QVERIFY(render(s, 120, 24).dump(false).find("h hold") != std::string::npos);
  }

  // New data keeps the selection on the same job even when rows move.
  void selectionFollowsTheJob() {
    State s = sample();
    onKey(s, kKeyDown);
    onKey(s, kKeyDown);
    QCOMPARE(*selectedJob(s), JobId{3});
    Data d = s.data;
    d.jobs.erase(d.jobs.begin());
    replaceData(s, d);
    QCOMPARE(*selectedJob(s), JobId{3});
  }

  // Tiny terminals get a message, never overlapping text; no size crashes the renderer.
  void anySizeRenders() {
    State s = sample();
    for (int w : {0, 1, 19, 20, 40, 80, 300})
      for (int h : {0, 1, 5, 6, 24}) {
        const Screen scr = render(s, w, h);
        QCOMPARE(scr.width(), std::max(0, w));
      }
    QVERIFY(render(s, 10, 3).dump(false).starts_with("Terminal"));
  }

  void heatLevels() {
    NodeView n = node("a1");
    GpuView g = n.gpus[0];
    g.allocated = 1;
    g.util = 0.1;
    QCOMPARE(*heatLevel(HeatLayer::Allocation, n, g, 0), 4);
    QCOMPARE(*heatLevel(HeatLayer::Utilization, n, g, 0), 1);
    QCOMPARE(*heatLevel(HeatLayer::IdleGap, n, g, 0), 4);    // allocated, 90% idle
    QVERIFY(!heatLevel(HeatLayer::SmActive, n, g, 0));       // no telemetry
    QVERIFY(!heatLevel(HeatLayer::Fragmentation, n, g, 0));  // a whole GPU in use
    QCOMPARE(*heatLevel(HeatLayer::Fragmentation, n, n.gpus[1], 1.0), 4);
    QCOMPARE(*heatLevel(HeatLayer::Health, node("x", "draining"), g, 0), 2);
  }

  // The fragmentation layer is the desktop's (service/gpu_fragmentation.h): free GPUs beside a
  // busy one are stranded only when the pending work cannot use them there.
  void fragmentationIsTheDesktops() {
    State s = sample();  // jobs 2 and 3 pending, one GPU each
    NodeView& a1 = s.data.snapshot.nodes[0];
    a1.gpus[0].occupants = {occupant(1, 1000, "llm")};
    a1.gpus[0].allocated = 1;
    s.ui.layer = HeatLayer::Fragmentation;
    deriveGpus(s.data, GpuCatalog::builtin());
    QCOMPARE(s.data.derived[0][1].fragmentation, 0.0);  // a one-GPU task fits beside it
    QCOMPARE(heatCells(s, a1, 1), (std::vector<std::optional<int>>{0}));
    for (JobInfo& j : s.data.jobs) j.row.job.perTask.gpus = 4;
    deriveGpus(s.data, GpuCatalog::builtin());
    QCOMPARE(s.data.derived[0][1].fragmentation, 1.0);  // three free, four wanted
    QCOMPARE(heatCells(s, a1, 1), (std::vector<std::optional<int>>{4}));
    QCOMPARE(heatCells(s, a1, 0), (std::vector<std::optional<int>>{std::nullopt}));
    QCOMPARE(s.data.derived[2][1].fragmentation, 0.0);  // b1: nothing in use, nothing stranded
  }

  // A MIG GPU is a slice bar as long as its model's memory slices (the GPU catalog): 8 on an
  // H100, 4 on an A30. Allocation colours each slice by its instance; utilization by the GPU.
  void migSliceBarsFollowTheCatalog() {
    State s;
    NodeView n = node("m");
    n.gpus = {migGpu(0, "H100-SXM5-80GB", "3g.40gb@0*,1g.10gb@4"),
              migGpu(1, "A30-24GB", "2g.12gb@0*"), n.gpus[2]};
    n.gpus[1].util = 0.5;
    s.data.snapshot.nodes = {n};
    deriveGpus(s.data, GpuCatalog::builtin());
    const NodeView& m = s.data.snapshot.nodes[0];
    using Cells = std::vector<std::optional<int>>;
    QCOMPARE(heatCells(s, m, 0), (Cells{4, 4, 4, 4, 0, 0, 0, 0}));
    QCOMPARE(heatCells(s, m, 1), (Cells{4, 4, 0, 0}));
    QCOMPARE(heatCells(s, m, 2), (Cells{0}));
    s.ui.layer = HeatLayer::Utilization;
    QCOMPARE(heatCells(s, m, 1), (Cells{2, 2, 2, 2}));
    QCOMPARE(heatCells(s, m, 0), (Cells(8, std::nullopt)));  // no telemetry
    // Fragmentation: a pending 7g.80gb fits on no free slice; instances have no value.
    JobInfo wide = job(9, "wide", "llm", JobState::Pending);
    wide.row.job.perTask.kind = GpuRequest::Kind::Mig;
    wide.row.job.perTask.migProfile = "7g.80gb";
    s.data.jobs = {wide};
    deriveGpus(s.data, GpuCatalog::builtin());
    s.ui.layer = HeatLayer::Fragmentation;
    QCOMPARE(heatCells(s, m, 0), (Cells{std::nullopt, std::nullopt, std::nullopt, std::nullopt,
                                        std::nullopt, 4, 4, 4}));
    s.ui.layer = HeatLayer::Allocation;
    s.ui.stack = {View::Gpus};
    QVERIFY(render(s, 80, 24).dump(false).find("m    ████···· ██·· ·") != std::string::npos);
    s.ui.stack = {View::Mig};
    const std::string mig = render(s, 120, 24).dump(false);
    QVERIFY(mig.find("m/0") != std::string::npos && mig.find("██") != std::string::npos);
    QCOMPARE(migBusyFraction(&s.data.derived[0][0]), 0.5);
    QCOMPARE(migBusyFraction(&s.data.derived[0][1]), 0.5);
  }

  // A node of eight slice bars keeps its gaps where they fit and closes them up on 80 columns, so
  // that its last GPU stays on screen.
  void sliceBarsCloseUpOnNarrowTerminals() {
    State s;
    NodeView n = node("inference-01");  // a 12-cell name: with gaps the node is 86 cells wide
    n.gpus.clear();
    for (int i = 0; i < 8; ++i) n.gpus.push_back(migGpu(i, "H100-SXM5-80GB", "7g.80gb@0*"));
    s.data.snapshot.nodes = {n};
    deriveGpus(s.data, GpuCatalog::builtin());
    s.ui.stack = {View::Gpus};
    const std::string bar = "████████";
    const auto line = [&](int width) { return render(s, width, 24).rowText(4); };
    QVERIFY(line(120).find(bar + " " + bar) != std::string::npos);
    std::string closed;
    for (int i = 0; i < 8; ++i) closed += bar;
    QVERIFY(line(80).find(closed) != std::string::npos);
    s.ui.width = 80;
    for (int i = 0; i < 7; ++i) onKey(s, kKeyRight);
    QCOMPARE(s.ui.selectedGpu, 7);
    const Screen narrow = render(s, 80, 24);
    QCOMPARE(selectedCells(narrow).back().first, 2 + 12 + 1 + 7 * 8 + 7);  // last slice on screen
  }

  // Arrows and hjkl move a GPU cell: across in GPU order, up and down on screen; Enter opens
  // the node.
  void heatmapArrowsMoveAGpu() {
    State s = sample();
    type(s, ":gpus");
    onKey(s, kKeyEnter);
    s.ui.width = 20;  // one node per line
    for (int i = 0; i < 5; ++i) onKey(s, kKeyRight);
    QCOMPARE(*selectedNode(s), std::string("a2"));
    QCOMPARE(s.ui.selectedGpu, 1);
    onKey(s, U'h');
    onKey(s, kKeyLeft);
    QCOMPARE(*selectedNode(s), std::string("a1"));
    QCOMPARE(s.ui.selectedGpu, 3);
    onKey(s, kKeyDown);
    QCOMPARE(*selectedNode(s), std::string("a2"));
    QCOMPARE(s.ui.selectedGpu, 3);
    onKey(s, U'j');
    onKey(s, U'j');  // the last line: stays
    QCOMPARE(*selectedNode(s), std::string("b1"));
    onKey(s, kKeyUp);
    onKey(s, U'l');
    QCOMPARE(*selectedNode(s), std::string("b1"));
    QCOMPARE(s.ui.selectedGpu, 0);
    s.ui.width = 200;  // all on one line: up and down have nowhere to go
    onKey(s, U'k');
    QCOMPARE(*selectedNode(s), std::string("b1"));
    onKey(s, U'l');
    onKey(s, kKeyEnter);
    QCOMPARE(s.ui.view(), View::NodeDetail);
    QCOMPARE(s.ui.detailNode, std::string("b1"));
    const Screen detail = render(s, 80, 24);  // the GPU Enter came from is marked: GPU1's row
    QCOMPARE(detail.at(0, 4).role, Role::Selected);
    QVERIFY(detail.at(0, 3).role != Role::Selected && detail.at(0, 5).role != Role::Selected);
  }

  // The selection is a GPU, not a place on screen: new data with the nodes in another order and a
  // resize keep it on the same GPU.
  void heatmapSelectionSurvivesRefreshAndResize() {
    State s = sample();
    type(s, ":gpus");
    onKey(s, kKeyEnter);
    for (int i = 0; i < 6; ++i) onKey(s, kKeyRight);
    Data d = s.data;
    std::reverse(d.snapshot.nodes.begin(), d.snapshot.nodes.end());
    replaceData(s, d);
    QCOMPARE(*selectedNode(s), std::string("a2"));
    QCOMPARE(s.ui.selectedGpu, 2);
    for (int width : {200, 30}) {
      const Screen scr = render(s, width, 30);
      const auto cells = selectedCells(scr);
      QCOMPARE(cells.size(), size_t{3});  // "a2" and one GPU cell
      const auto [x, y] = cells[0];
      QVERIFY(scr.at(x, y).ch == U'a' && scr.at(x + 1, y).ch == U'2');
      QCOMPARE(cells[2].first, cells[0].first + 4 + 1 + 2);  // name column, a space, GPU 2
    }
  }

  // Allocated, busy and SM-active per pool (fractions) and per team (GPUs: each GPU's telemetry
  // split by its occupants' shares).
  void utilizationPerPoolAndTeam() {
    State s;
    NodeView n = node("a1");
    n.pool = "p1";
    n.gpus.resize(2);
    n.gpus[0].occupants = {occupant(1, 1000, "llm")};
    n.gpus[0].allocated = 1, n.gpus[0].util = 0.5, n.gpus[0].smActive = 0.25;
    n.gpus[1].sharing = "shared";
    n.gpus[1].occupants = {occupant(2, 500, "llm"), occupant(3, 500, "vision")};
    n.gpus[1].allocated = 1, n.gpus[1].util = 1.0, n.gpus[1].smActive = 0.5;
    NodeView idle = node("b1");
    idle.pool = "p2";
    s.data.snapshot.nodes = {n, idle};
    s.data.snapshot.teams = {
        {"llm", "", 1.5, 2, 0}, {"vision", "", 0.5, 1, 0}, {"idle", "", 0, 1, 0}};
    const auto pools = poolPoints(s.data.snapshot);
    QCOMPARE(pools.at("p1").allocated, 1.0);
    QCOMPARE(pools.at("p1").busy, 0.75);
    QCOMPARE(pools.at("p1").smActive, 0.375);
    QCOMPARE(pools.at("p2").allocated, 0.0);
    const auto teams = teamPoints(s.data.snapshot);
    QCOMPARE(teams.at("llm").allocated, 1.5);
    QCOMPARE(teams.at("llm").busy, 1.0);
    QCOMPARE(teams.at("llm").smActive, 0.5);
    QCOMPARE(teams.at("vision").busy, 0.5);
    QCOMPARE(teams.at("idle").allocated, 0.0);
    recordHistory(s.data);
    recordHistory(s.data);
    QCOMPARE(s.data.poolHistory.at("p1").size(), size_t{2});
    QCOMPARE(s.data.teamHistory.at("vision").back().smActive, 0.25);
    s.ui.stack = {View::Teams};
    const std::string screen = render(s, 120, 30).dump(false);
    for (const char* text : {"allocated", "busy", "SM active", "pool p1", "75%", "38%"})
      QVERIFY2(screen.find(text) != std::string::npos, text);
  }

  // SHARE is each team's part of all decayed usage (a parent's includes its sub-teams'), not
  // the raw GPU-seconds the snapshot carries; before any usage it is "-".
  void teamShareIsAPartOfAllUsage() {
    State s;
    s.data.snapshot.teams = {
        {"research", "", 0, 8, 8000}, {"llm", "research", 0, 4, 6000}, {"infra", "", 0, 2, 2000}};
    s.ui.stack = {View::Teams};
    auto rowOf = [](const std::string& screen, const std::string& team) {
      const auto at = screen.find("\n" + team + " ");
      if (at == std::string::npos) return std::string();
      return screen.substr(at + 1, screen.find('\n', at + 1) - at - 1);
    };
    const std::string screen = render(s, 120, 30).dump(false);
    for (const auto& [team, share] :
         {std::pair{"research", " 80%"}, {"llm", " 60%"}, {"infra", " 20%"}}) {
      const std::string row = rowOf(screen, team);
      QVERIFY2(row.find(share) != std::string::npos, (team + std::string(": ") + row).c_str());
    }
    for (TeamView& t : s.data.snapshot.teams) t.fairShareUsage = 0;
    const std::string row = rowOf(render(s, 120, 30).dump(false), "llm");
    QVERIFY2(row.find('%') == std::string::npos && row.find(" - ") != std::string::npos,
             row.c_str());
  }
};

QTEST_GUILESS_MAIN(TstTuiModel)
#include "tst_tui_model.moc"
