// The frame around every view: the title line (cluster totals and an allocation sparkline), the
// view line (view name, filter, sort, layer), the key hints and the command/status line, and the
// confirmation box over the body.
#include <algorithm>

#include "render.h"
#include "rows.h"
#include "text.h"
#include "views.h"

namespace tessera::tui {

namespace {

constexpr int kTop = 2;     // title and view lines
constexpr int kBottom = 2;  // hints and command line

std::string viewTitle(View v) {
  switch (v) {
    case View::Jobs:
      return str(Top::tr("Jobs"));
    case View::Pending:
      return str(Top::tr("Pending"));
    case View::Running:
      return str(Top::tr("Running"));
    case View::Nodes:
      return str(Top::tr("Nodes"));
    case View::Gpus:
      return str(Top::tr("GPU heatmap"));
    case View::Mig:
      return str(Top::tr("MIG"));
    case View::Events:
      return str(Top::tr("Events"));
    case View::Teams:
      return str(Top::tr("Teams"));
    case View::JobDetail:
      return str(Top::tr("Job"));
    case View::NodeDetail:
      return str(Top::tr("Node"));
    case View::Help:
      return str(Top::tr("Keys"));
  }
  return {};
}

void drawTitle(Screen& scr, const State& s) {
  const ClusterSnapshot& c = s.data.snapshot;
  const auto gpus = [](double v) { return std::to_string(static_cast<int>(v + 0.5)); };
  std::string line = " Tessera top  " + s.data.source + "  " +
                     str(Top::tr("GPUs %1/%2")
                             .arg(QString::fromStdString(gpus(c.gpusAllocated)),
                                  QString::fromStdString(gpus(c.gpusTotal)))) +
                     "  " + str(Top::tr("run %1").arg(c.runningJobs)) + "  " +
                     str(Top::tr("pend %1").arg(c.pendingJobs)) + "  ";
  scr.fill(0, 0, scr.width(), 1, U' ', Role::Title);
  int x = scr.put(0, 0, line, Role::Title);
  std::vector<double> alloc;
  for (const UtilPoint& p : s.data.history) alloc.push_back(p.allocated);
  const int spark = std::min(24, scr.width() - x - 1);
  if (spark > 4) drawSparkline(scr, *s.glyphs, x, 0, spark, alloc, Role::Title);
  if (!s.data.connection.empty()) {
    const std::string lost = " " + s.data.connection + " ";
    const int w = std::min(textWidth(lost), scr.width());
    scr.put(scr.width() - w, 0, lost, Role::Bad, w);
  }
}

std::string viewLine(const State& s) {
  std::string line = "<" + viewTitle(s.ui.view()) + ">";
  if (s.ui.view() == View::JobDetail) line += " " + std::to_string(s.ui.detailJob);
  if (s.ui.view() == View::NodeDetail) line += " " + s.ui.detailNode;
  const View v = s.ui.view();
  if (v != View::JobDetail && v != View::NodeDetail && v != View::Help)
    line += " [" + std::to_string(rowCount(s)) + "]";
  if (!s.ui.filter.empty()) line += "  /" + s.ui.filter;
  if (isJobList(v))
    line += "  " + str(Top::tr("sort")) + ":" + jobSortName(s.ui.sort) +
            (s.ui.descending ? "-" : "+") +
            (s.ui.groupByTeam ? "  " + str(Top::tr("by team")) : "");
  if (s.ui.readonly) line += "  " + str(Top::tr("read-only"));
  return line;
}

// Key hints for the view: only actions the operator may take (none when read-only).
std::string hints(const State& s) {
  std::string h = str(Top::tr(":view /filter ?keys Esc back q quit"));
  const View v = s.ui.view();
  if (isJobList(v)) h += "  " + str(Top::tr("Enter detail s sort g group"));
  if (v == View::Gpus) h += "  " + str(Top::tr("arrows/hjkl move L layer Enter node"));
  if (s.ui.readonly) return h;
  if (selectedJob(s)) h += "  " + str(Top::tr("h hold r release p preempt x cancel"));
  if (selectedNode(s)) h += "  " + str(Top::tr("d drain u undrain"));
  return h;
}

void drawHints(Screen& scr, const State& s, int y) {
  scr.put(0, y, hints(s), Role::Key, scr.width());
}

void drawCommandLine(Screen& scr, const State& s, int y) {
  switch (s.ui.mode) {
    case Mode::Command:
      scr.put(0, y, ":" + s.ui.input, Role::Accent);
      return;
    case Mode::Filter:
      scr.put(0, y, "/" + s.ui.input, Role::Accent);
      return;
    case Mode::Prompt: {
      const int x = scr.put(0, y, s.ui.message + " ", Role::Accent);
      scr.put(x, y, s.ui.input, Role::Normal);
      return;
    }
    default:
      break;
  }
  if (!s.ui.message.empty()) scr.put(0, y, s.ui.message, Role::Accent);
}

void drawImpact(Screen& scr, const Impact& impact, int x, int& y, int w) {
  const auto ids = [](const std::vector<JobId>& v) {
    std::string out;
    for (JobId j : v) out += (out.empty() ? "" : " ") + std::to_string(j);
    return out.empty() ? std::string("-") : out;
  };
  scr.put(x, y++, str(Top::tr("starts: %1").arg(QString::fromStdString(ids(impact.started)))),
          Role::Ok, w);
  scr.put(x, y++, str(Top::tr("preempted: %1").arg(QString::fromStdString(ids(impact.preempted)))),
          impact.preempted.empty() ? Role::Normal : Role::Bad, w);
  scr.put(x, y++, str(Top::tr("stopped: %1").arg(QString::fromStdString(ids(impact.stopped)))),
          Role::Normal, w);
  scr.put(x, y++, str(Top::tr("GPU-hours lost: %1").arg(impact.gpuHoursLost, 0, 'f', 1)),
          Role::Normal, w);
  for (const Text& warning : impact.warnings) scr.put(x, y++, engineText(warning), Role::Warn, w);
}

// The box asking for a yes: what the command is and what the engine predicts it does.
void drawConfirm(Screen& scr, const Confirmation& c, int top, int h) {
  const int w = std::min(scr.width() - 2, 70);
  const int x = (scr.width() - w) / 2;
  const int boxH = std::min(h, 10 + static_cast<int>(c.impact ? c.impact->warnings.size() : 0));
  const int y0 = top + std::max(0, (h - boxH) / 2);
  scr.fill(x, y0, w, boxH, U' ', Role::Normal);
  int y = y0;
  scr.put(x, y, " " + str(Top::tr("Confirm")) + ": " + c.description, Role::Title, w);
  scr.paintRow(y++, Role::Title, x, w);
  scr.put(x + 1, y++, str(Top::tr("Dry run (the engine's prediction):")), Role::Header, w - 2);
  if (!c.error.empty())
    scr.put(x + 1, y++, c.error, Role::Bad, w - 2);
  else if (c.impact)
    drawImpact(scr, *c.impact, x + 1, y, w - 2);
  scr.put(x + 1, y0 + boxH - 1, str(Top::tr("y apply  n cancel")), Role::Key, w - 2);
}

void drawBody(Screen& scr, const State& s, int h) {
  const int w = scr.width();
  switch (s.ui.view()) {
    case View::Jobs:
    case View::Pending:
    case View::Running:
      drawJobs(scr, s, 0, kTop, w, h);
      break;
    case View::Nodes:
      drawNodes(scr, s, 0, kTop, w, h);
      break;
    case View::Gpus:
      drawHeatmap(scr, s, 0, kTop, w, h);
      break;
    case View::Mig:
      drawMig(scr, s, 0, kTop, w, h);
      break;
    case View::Events:
      drawEvents(scr, s, 0, kTop, w, h);
      break;
    case View::Teams:
      drawTeams(scr, s, 0, kTop, w, h);
      break;
    case View::JobDetail:
      drawJobDetail(scr, s, 0, kTop, w, h);
      break;
    case View::NodeDetail:
      drawNodeDetail(scr, s, 0, kTop, w, h);
      break;
    case View::Help:
      drawHelp(scr, s, 0, kTop, w, h);
      break;
  }
}

}  // namespace

int bodyHeight(int screenHeight) {
  return std::max(0, screenHeight - kTop - kBottom);
}

Screen render(const State& s, int width, int height) {
  Screen scr(width, height, !s.glyphs->unicode);
  if (width < 20 || height < 6) {
    scr.put(0, 0, str(Top::tr("Terminal too small")), Role::Warn);
    return scr;
  }
  drawTitle(scr, s);
  scr.put(0, 1, viewLine(s), Role::Accent);
  const int h = bodyHeight(height);
  drawBody(scr, s, h);
  if (s.ui.mode == Mode::Confirm && s.ui.confirm) drawConfirm(scr, *s.ui.confirm, kTop, h);
  drawHints(scr, s, height - 2);
  drawCommandLine(scr, s, height - 1);
  return scr;
}

}  // namespace tessera::tui
