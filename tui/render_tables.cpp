// The list views: jobs (all active, or pending only), nodes, MIG GPUs, events and teams.
#include <algorithm>
#include <array>

#include "heatmap_layout.h"
#include "rows.h"
#include "text.h"
#include "views.h"

namespace tessera::tui {

namespace {

Role stateRole(JobState st) {
  switch (st) {
    case JobState::Running:
      return Role::Ok;
    case JobState::Pending:
    case JobState::Admitted:
      return Role::Warn;
    case JobState::Failed:
    case JobState::Preempted:
      return Role::Bad;
    default:
      return Role::Dim;
  }
}

Role nodeStateRole(const std::string& state) {
  if (state == "up") return Role::Ok;
  if (state == "draining") return Role::Warn;
  return Role::Bad;
}

std::string jobReason(const JobInfo& j) {
  if (j.row.state == JobState::Running) return jobNodes(j);
  std::string r = engineText(j.row.reason);
  if (r.empty()) r = j.blockedBy;
  return r.empty() && j.row.job.held ? str(Top::tr("held")) : r;
}

std::vector<Column> jobColumns() {
  return {{str(Top::tr("ID")), 6, true, 10},
          {str(Top::tr("NAME")), 18, false, 9},
          {str(Top::tr("TEAM")), 10, false, 7},
          {str(Top::tr("CLASS")), 12, false, 2},
          {str(Top::tr("STATE")), 8, false, 8},
          {str(Top::tr("GPUS")), 9, false, 6},
          {str(Top::tr("POS")), 4, true, 4},
          {str(Top::tr("AGE")), 7, true, 3},
          {str(Top::tr("REASON / NODES")), 16, false, 7, true}};
}

TableRow jobRow(const JobInfo& j, Seconds now) {
  const Job& job = j.row.job;
  const Seconds since = j.row.state == JobState::Running ? j.row.startTime : job.submitTime;
  return {{std::to_string(job.id)},
          {job.name},
          {job.team},
          {job.priorityClass, Role::Dim},
          {jobStateName(j.row.state), stateRole(j.row.state)},
          {jobRequest(job)},
          {j.queuePosition > 0 ? std::to_string(j.queuePosition) : "", Role::Accent},
          {shortDuration(now - since), Role::Dim},
          {jobReason(j), j.row.job.held ? Role::Warn : Role::Normal}};
}

}  // namespace

void drawJobs(Screen& scr, const State& s, int x, int y, int w, int h) {
  TableView t{jobColumns(), {}, {}, s.ui.selected};
  const auto rows = visibleJobs(s);
  std::string team;
  for (size_t i = 0; i < rows.size(); ++i) {
    t.rows.push_back(jobRow(*rows[i], s.data.snapshot.now));
    const bool starts = s.ui.groupByTeam && (i == 0 || rows[i]->row.job.team != team);
    team = rows[i]->row.job.team;
    t.groups.push_back(starts ? "▸ " + team : "");
  }
  if (!s.glyphs->unicode)
    for (auto& g : t.groups)
      if (!g.empty()) g = "> " + g.substr(4);
  drawTable(scr, t, x, y, w, h);
}

void drawNodes(Screen& scr, const State& s, int x, int y, int w, int h) {
  TableView t{{{str(Top::tr("NODE")), 14, false, 10},
               {str(Top::tr("STATE")), 8, false, 9},
               {str(Top::tr("POOL")), 10, false, 4},
               {str(Top::tr("LEAF")), 10, false, 3},
               {str(Top::tr("GPUS")), 6, true, 8},
               {str(Top::tr("ALLOCATED")), 12, false, 7},
               {str(Top::tr("UTIL")), 5, true, 6},
               {str(Top::tr("REASON")), 12, false, 5, true}},
              {},
              {},
              s.ui.selected};
  for (const NodeView* n : visibleNodes(s)) {
    double alloc = 0, util = 0;
    int withUtil = 0;
    for (const GpuView& g : n->gpus) {
      alloc += g.allocated;
      if (g.util) util += *g.util, ++withUtil;
    }
    const int gpus = static_cast<int>(n->gpus.size());
    t.rows.push_back({{n->name},
                      {n->state, nodeStateRole(n->state)},
                      {n->pool, Role::Dim},
                      {n->leaf, Role::Dim},
                      {std::to_string(static_cast<int>(alloc + 0.5)) + "/" + std::to_string(gpus)},
                      {"", Role::Normal,
                       [&s, frac = gpus ? alloc / gpus : 0.0](Screen& out, int bx, int by, int bw) {
                         drawBar(out, *s.glyphs, bx, by, bw, frac, Role::Accent);
                       }},
                      {withUtil ? percent(util / withUtil) : "-"},
                      {engineText(n->stateReason), Role::Warn}});
  }
  // Nodes that wait for an operator share the view, at most half of it, so the table stays.
  const int foot = std::min(admissionLines(s), h / 2);
  drawTable(scr, t, x, y, w, h - foot);
  if (foot > 0) drawAdmission(scr, s, x, y + h - foot, w, foot);
}

void drawMig(Screen& scr, const State& s, int x, int y, int w, int h) {
  const auto gpus = visibleMigGpus(s);
  int slices = 8;  // the column fits the model with the most memory slices
  for (const GpuRef& r : gpus)
    if (const GpuDerived* d = derivedOf(s, *r.node, *r.gpu))
      slices = std::max(slices, static_cast<int>(d->slices.size()));
  TableView t{{{str(Top::tr("GPU")), 16, false, 10},
               {str(Top::tr("MODEL")), 16, false, 5},
               {str(Top::tr("SLICES")), slices, false, 9},
               {str(Top::tr("BUSY")), 5, true, 6},
               {str(Top::tr("LAYOUT")), 20, false, 7, true}},
              {},
              {},
              s.ui.selected};
  for (const GpuRef& r : gpus)
    t.rows.push_back({{r.node->name + "/" + std::to_string(r.gpu->index)},
                      {r.gpu->model, Role::Dim},
                      {"", Role::Normal,
                       [&s, d = derivedOf(s, *r.node, *r.gpu)](Screen& out, int bx, int by, int) {
                         drawMigSlices(out, *s.glyphs, bx, by, d);
                       }},
                      {percent(migBusyFraction(derivedOf(s, *r.node, *r.gpu)))},
                      {r.gpu->migLayout}});
  drawTable(scr, t, x, y, w, h);
}

void drawEvents(Screen& scr, const State& s, int x, int y, int w, int h) {
  TableView t{{{str(Top::tr("SEQ")), 7, true, 4},
               {str(Top::tr("TIME")), 8, true, 6},
               {str(Top::tr("JOB")), 6, true, 9},
               {str(Top::tr("EVENT")), 10, false, 10},
               {str(Top::tr("ACTOR")), 10, false, 5},
               {str(Top::tr("REASON")), 20, false, 8, true}},
              {},
              {},
              s.ui.selected};
  for (const Event* e : visibleEvents(s))
    t.rows.push_back({{std::to_string(e->seq), Role::Dim},
                      {shortDuration(s.data.snapshot.now - e->time), Role::Dim},
                      {e->job == kNoJob ? "" : std::to_string(e->job)},
                      {engineText(eventKindText(e->kind)), stateRole(e->to)},
                      {e->actor, Role::Dim},
                      {engineText(e->reason)}});
  drawTable(scr, t, x, y, w, h);
}

namespace {

constexpr std::array<Role, 3> kSeriesRoles{Role::Accent, Role::Ok, Role::Normal};

// A history's allocated, busy and SM-active values, each divided by `scale`.
std::array<std::vector<double>, 3> seriesOf(const std::deque<UtilPoint>& points, double scale) {
  std::array<std::vector<double>, 3> out;
  for (const UtilPoint& p : points) {
    out[0].push_back(p.allocated / scale);
    out[1].push_back(p.busy / scale);
    out[2].push_back(p.smActive / scale);
  }
  return out;
}

// The three series side by side in `w` cells, a space apart; with `withValue` each ends with its
// latest value as a percentage.
void drawSeries(Screen& scr, const Glyphs& g, int x, int y, int w,
                const std::deque<UtilPoint>& points, double scale, bool withValue) {
  const auto series = seriesOf(points, scale);
  const int segment = (w - 2) / 3;
  for (size_t i = 0; i < series.size(); ++i) {
    const int sx = x + static_cast<int>(i) * (segment + 1);
    const std::string value =
        withValue
            ? " " + percent(series[i].empty() ? std::nullopt : std::optional(series[i].back()))
            : "";
    const int sparkW = std::max(0, segment - textWidth(value));
    drawSparkline(scr, g, sx, y, sparkW, series[i], kSeriesRoles[i]);
    scr.put(sx + sparkW, y, value, Role::Normal, segment - sparkW);
  }
}

void drawSeriesTitles(Screen& scr, int x, int y, int w) {
  const int segment = (w - 2) / 3;
  const std::array<std::string, 3> titles{str(Top::tr("allocated")), str(Top::tr("busy")),
                                          str(Top::tr("SM active"))};
  for (size_t i = 0; i < titles.size(); ++i)
    scr.put(x + static_cast<int>(i) * (segment + 1), y, titles[i], kSeriesRoles[i], segment);
}

// The utilization history above the teams: the series' titles, the cluster, then each pool.
int drawUtilization(Screen& scr, const State& s, int x, int y, int w, int h) {
  const int lw = std::min(w / 4, 20);
  std::vector<std::pair<std::string, const std::deque<UtilPoint>*>> rows{
      {str(Top::tr("cluster")), &s.data.history}};
  for (const auto& [pool, points] : s.data.poolHistory)
    rows.emplace_back(str(Top::tr("pool %1").arg(QString::fromStdString(pool))), &points);
  int line = 0;
  if (h / 2 < 2) return line;  // the teams keep at least half of the body
  drawSeriesTitles(scr, x + lw, y + line++, w - lw);
  for (const auto& [name, points] : rows) {
    if (line >= h / 2) break;
    scr.put(x, y + line, name, Role::Normal, lw - 1);
    drawSeries(scr, *s.glyphs, x + lw, y + line++, w - lw, *points, 1.0, true);
  }
  return line;
}

}  // namespace

void drawTeams(Screen& scr, const State& s, int x, int y, int w, int h) {
  const int line = drawUtilization(scr, s, x, y, w, h);
  TableView t{{{str(Top::tr("TEAM")), 16, false, 10},
               {str(Top::tr("PARENT")), 12, false, 3},
               {str(Top::tr("IN USE")), 7, true, 9},
               {str(Top::tr("GUARANTEED")), 10, true, 6},
               {str(Top::tr("SHARE")), 6, true, 5},
               {str(Top::tr("ALLOCATED / BUSY / SM")), 20, false, 7, true}},
              {},
              {},
              s.ui.selected};
  static const std::deque<UtilPoint> kNone;
  // SHARE: a team's decayed usage against all of it (the top-level teams' sum: a team's usage
  // includes its sub-teams'), as Slurm's sshare shows usage.
  double totalUsage = 0;
  for (const TeamView& team : s.data.snapshot.teams)
    if (team.parent.empty()) totalUsage += team.fairShareUsage;
  for (const TeamView* team : visibleTeams(s)) {
    // In GPUs, scaled to the team's own peak (or its guarantee when that is higher).
    const auto it = s.data.teamHistory.find(team->name);
    const std::deque<UtilPoint>& points = it == s.data.teamHistory.end() ? kNone : it->second;
    double peak = std::max(1.0, static_cast<double>(team->guaranteed));
    for (const UtilPoint& p : points) peak = std::max(peak, p.allocated);
    t.rows.push_back({{team->name},
                      {team->parent, Role::Dim},
                      {std::to_string(static_cast<int>(team->gpusInUse + 0.5))},
                      {std::to_string(team->guaranteed), Role::Dim},
                      {percent(totalUsage > 0 ? std::optional(team->fairShareUsage / totalUsage)
                                              : std::nullopt)},
                      {"", Role::Normal, [&s, &points, peak](Screen& out, int bx, int by, int bw) {
                         drawSeries(out, *s.glyphs, bx, by, bw, points, peak, false);
                       }}});
  }
  drawTable(scr, t, x, y + line, w, h - line);
}

}  // namespace tessera::tui
