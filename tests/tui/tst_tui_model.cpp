// The terminal console's parts without a terminal: the screen model's cells (display width of
// wide characters, clipping, ASCII fallback), filters, column fitting, the diff the writer
// rewrites, colour-mode detection and the key grammar with its actions (dry run first, then the
// confirmation's yes; nothing in read-only mode). Expected values are written here by hand.
#include <QtTest>

#include <clocale>

#include "tui/colors.h"
#include "tui/controller.h"
#include "tui/draw.h"
#include "tui/render.h"
#include "tui/rows.h"
#include "tui/terminal.h"

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
    QCOMPARE(*heatLevel(HeatLayer::Allocation, n, g), 4);
    QCOMPARE(*heatLevel(HeatLayer::Utilization, n, g), 1);
    QCOMPARE(*heatLevel(HeatLayer::IdleGap, n, g), 4);  // allocated, 90% idle
    QVERIFY(!heatLevel(HeatLayer::SmActive, n, g));     // no telemetry
    n.gpus[0].allocated = 1;
    QCOMPARE(*heatLevel(HeatLayer::Fragmentation, n, n.gpus[1]), 4);  // free beside a busy GPU
    QCOMPARE(*heatLevel(HeatLayer::Fragmentation, node("b1"), n.gpus[1]), 0);
    QCOMPARE(*heatLevel(HeatLayer::Health, node("x", "draining"), g), 2);
  }
};

QTEST_GUILESS_MAIN(TstTuiModel)
#include "tst_tui_model.moc"
