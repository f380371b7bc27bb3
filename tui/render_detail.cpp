// Drill-down views: a job with the engine's explanation, a node with nvitop-style GPU bars, MIG
// slices, holds and running jobs; and the key map.
#include <algorithm>

#include "heatmap_layout.h"
#include "rows.h"
#include "service/mps_use.h"
#include "text.h"
#include "views.h"

namespace tessera::tui {

namespace {

// Lines of text with roles, drawn from a scroll offset: the detail views are longer than a
// small terminal.
struct Lines {
  std::vector<std::pair<std::string, Role>> items;
  int width;
  void add(const std::string& text, Role role = Role::Normal) {
    for (const std::string& l : wrap(text, width)) items.emplace_back(l, role);
  }
  void field(const std::string& name, const std::string& value, Role role = Role::Normal) {
    if (!value.empty()) add(name + ": " + value, role);
  }
  void draw(Screen& scr, int x, int y, int h) const {
    for (int i = 0; i < h && i < static_cast<int>(items.size()); ++i)
      scr.put(x, y + i, items[static_cast<size_t>(i)].first, items[static_cast<size_t>(i)].second,
              width);
  }
};

std::string ids(const std::vector<JobId>& v) {
  std::string out;
  for (JobId j : v) out += (out.empty() ? "" : ", ") + std::to_string(j);
  return out;
}

const JobInfo* findJob(const State& s, JobId id) {
  for (const JobInfo& j : s.data.jobs)
    if (j.row.job.id == id) return &j;
  return nullptr;
}

// "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=25  CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=8192M": what the
// job's MPS server holds each task to; empty for other requests.
std::string mpsLimits(const GpuRequest& r) {
  std::string out;
  for (const auto& [name, value] : mpsEnvironment(r))
    out += (out.empty() ? "" : "  ") + name + "=" + value;
  return out;
}

void explanationLines(Lines& out, const Explanation& e, Seconds now) {
  out.field(str(Top::tr("Why")), engineText(e.dominantReason), Role::Warn);
  out.field(str(Top::tr("Nodes")), engineText(e.nodeSummary));
  if (e.queuePosition)
    out.field(str(Top::tr("Queue position")),
              std::to_string(*e.queuePosition) + " / " + std::to_string(e.queueLength),
              Role::Accent);
  if (e.eta)
    out.field(str(Top::tr("ETA")),
              str(Top::tr("in %1").arg(QString::fromStdString(shortDuration(*e.eta - now)))));
  out.field(str(Top::tr("Fragmentation")), engineText(e.fragmentation));
  out.field(str(Top::tr("Blocked by jobs")), ids(e.blockingJobs));
  std::string queues;
  for (const auto& q : e.blockingQueues) queues += (queues.empty() ? "" : ", ") + q;
  out.field(str(Top::tr("Blocked by teams")), queues);
  if (!e.counterfactuals.empty()) out.add(str(Top::tr("What would help:")), Role::Header);
  for (const Counterfactual& c : e.counterfactuals) out.add("  - " + engineText(c.text));
  out.field(str(Top::tr("Placement")), engineText(e.placement), Role::Ok);
  if (!e.history.empty()) out.add(str(Top::tr("History:")), Role::Header);
  const size_t first = e.history.size() > 12 ? e.history.size() - 12 : 0;
  for (size_t i = first; i < e.history.size(); ++i)
    out.add("  " + engineText(e.history[i]), Role::Dim);
}

}  // namespace

void drawJobDetail(Screen& scr, const State& s, int x, int y, int w, int h) {
  Lines out{{}, w};
  const JobInfo* j = findJob(s, s.ui.detailJob);
  if (j) {
    const Job& job = j->row.job;
    out.add(std::to_string(job.id) + "  " + job.name, Role::Header);
    out.add(
        str(Top::tr("team %1, class %2, %3, asks %4")
                .arg(QString::fromStdString(job.team), QString::fromStdString(job.priorityClass),
                     QString::fromStdString(jobStateName(j->row.state)),
                     QString::fromStdString(jobRequest(job)))));
    if (job.held) out.add(str(Top::tr("held by an operator")), Role::Warn);
    std::string where;
    for (const PlacedTask& t : j->placement) {
      where += (where.empty() ? "" : " ") + t.node + "[";
      for (size_t i = 0; i < t.gpus.size(); ++i)
        where += (i ? "," : "") + std::to_string(t.gpus[i]);
      where += "]";
    }
    out.field(str(Top::tr("Running on")), where, Role::Ok);
    out.field(str(Top::tr("MPS limits")), mpsLimits(job.perTask));
  } else {
    out.add(str(Top::tr("Job %1 is no longer active").arg(s.ui.detailJob)), Role::Dim);
  }
  if (s.data.explanation && s.data.explanation->job == s.ui.detailJob)
    explanationLines(out, *s.data.explanation, s.data.snapshot.now);
  out.draw(scr, x, y, h);
}

double migBusyFraction(const GpuDerived* gpu) {
  if (!gpu || gpu->slices.empty()) return 0;
  const auto busy = std::count(gpu->slices.begin(), gpu->slices.end(), MigSliceState::Busy);
  return static_cast<double>(busy) / static_cast<double>(gpu->slices.size());
}

int drawMigSlices(Screen& scr, const Glyphs& g, int x, int y, const GpuDerived* gpu) {
  if (!gpu) return 0;
  int cx = x;
  for (MigSliceState st : gpu->slices) {
    switch (st) {
      case MigSliceState::Busy:
        cx += scr.putChar(cx, y, g.heat[4], Role::Accent);
        break;
      case MigSliceState::Idle:
        cx += scr.putChar(cx, y, g.heat[2], Role::Normal);
        break;
      case MigSliceState::Free:
        cx += scr.putChar(cx, y, g.migFree, Role::Dim);
        break;
      case MigSliceState::Stranded:
        cx += scr.putChar(cx, y, g.migFree, Role::Warn);
        break;
    }
  }
  return cx - x;
}

namespace {

// "MPS 2/48 75/100%": clients of the limit and active threads of the budget, per server ("MPS@4"
// for a MIG instance's), and "1/node" after the GPU's own server under node_sharing one (the
// node takes new clients on one GPU at a time); empty when the GPU runs no MPS.
std::string mpsSummary(const GpuView& g) {
  std::string out;
  if (!g.mps) return out;
  for (const MpsServerUse& u : mpsServerUse(g)) {
    out += (out.empty() ? "" : "  ") +
           (u.instanceStart < 0 ? std::string("MPS") : "MPS@" + std::to_string(u.instanceStart)) +
           " " + std::to_string(u.clients) + "/" + std::to_string(g.mps->clientLimit) + " " +
           std::to_string(u.threads) + "/" + std::to_string(g.mps->threadBudget) + "%";
    if (u.instanceStart < 0 && g.mps->nodeSharing == MpsNodeSharing::One) out += " 1/node";
  }
  return out;
}

// "job 12 (search)"; an MPS client with its limits: "job 12 (search, MPS 25% 8192M)".
std::string occupantText(const GpuView::Occupant& o) {
  const std::string limits = o.mps() ? ", MPS " + std::to_string(o.mpsThreads) + "% " +
                                           std::to_string(o.mpsMemoryMiB) + "M"
                                     : "";
  return "job " + std::to_string(o.job) + " (" + o.team + limits + ")";
}

void drawGpuRow(Screen& scr, const Glyphs& gl, const GpuView& g, const GpuDerived* d, int x, int y,
                int w) {
  int cx = x + scr.put(x, y, "GPU" + std::to_string(g.index) + " ", Role::Header, 6);
  cx = x + 6;
  const int barW = std::clamp((w - 40) / 2, 6, 20);
  if (g.sharing == "mig") {
    const int bar = drawMigSlices(scr, gl, cx, y, d) + 1;
    std::string text = g.migLayout;
    if (g.mps) text += "  " + mpsSummary(g);
    for (const auto& o : g.occupants)
      if (o.mps()) text += "  " + occupantText(o);
    scr.put(cx + bar, y, text, Role::Dim, x + w - cx - bar);
    return;
  }
  scr.put(cx, y, "UTL", Role::Dim);
  drawBar(scr, gl, cx + 4, y, barW, g.util.value_or(0), loadRole(g.util.value_or(0)));
  scr.put(cx + 5 + barW, y, percent(g.util), Role::Normal, 5);
  cx += 10 + barW;
  scr.put(cx, y, "MEM", Role::Dim);
  drawBar(scr, gl, cx + 4, y, barW, g.memoryUsed.value_or(0), loadRole(g.memoryUsed.value_or(0)));
  scr.put(cx + 5 + barW, y, percent(g.memoryUsed), Role::Normal, 5);
  cx += 10 + barW;
  std::string rest = "SM " + percent(g.smActive);
  if (g.mps) rest += "  " + mpsSummary(g);
  for (const auto& o : g.occupants) rest += "  " + occupantText(o);
  if (g.fault) rest = "Xid " + std::to_string(g.fault->xid) + " " + g.fault->message;
  scr.put(cx, y, rest, g.fault ? Role::Bad : Role::Normal, x + w - cx);
}

}  // namespace

void drawNodeDetail(Screen& scr, const State& s, int x, int y, int w, int h) {
  const NodeView* node = nullptr;
  for (const NodeView& n : s.data.snapshot.nodes)
    if (n.name == s.ui.detailNode) node = &n;
  if (!node) {
    scr.put(x, y, str(Top::tr("No node %1").arg(QString::fromStdString(s.ui.detailNode))),
            Role::Dim, w);
    return;
  }
  int line = 0;
  scr.put(
      x, y + line++,
      node->name + "  " + node->state + "  " + node->pool + "  " + node->spine + " > " + node->leaf,
      node->state == "up" ? Role::Header : Role::Warn, w);
  for (size_t i = 0; i < node->gpus.size(); ++i) {
    if (line >= h) return;
    drawGpuRow(scr, *s.glyphs, node->gpus[i], derivedOf(s, *node, i), x, y + line, w);
    if (s.ui.detailGpu == static_cast<int>(i))
      scr.paintRow(y + line, Role::Selected, x, 5);  // "GPU3 "
    ++line;
  }
  Lines out{{}, w};
  if (!node->holds.empty()) out.add(str(Top::tr("Holds:")), Role::Header);
  for (const NodeHoldView& hold : node->holds)
    out.add("  " + hold.owner + (hold.gpu.empty() ? "" : " " + hold.gpu) + ": " +
                engineText(hold.reason) + (hold.down ? "  (" + str(Top::tr("down")) + ")" : ""),
            hold.down ? Role::Bad : Role::Warn);
  out.add(str(Top::tr("Running jobs:")), Role::Header);
  for (const JobInfo& j : s.data.jobs)
    for (const PlacedTask& t : j.placement)
      if (t.node == node->name) {
        out.add("  " + std::to_string(j.row.job.id) + " " + j.row.job.name + " (" + j.row.job.team +
                ")");
        break;
      }
  out.draw(scr, x, y + line, h - line);
}

void drawHelp(Screen& scr, const State& s, int x, int y, int w, int h) {
  std::vector<std::pair<const char*, QString>> keys{
      {":jobs :pending :running :nodes :gpus :mig :events :teams", Top::tr("switch view")},
      {":jobs team=vision", Top::tr("switch view and filter it")},
      {"/", Top::tr("filter: words, key=value (team=, state=, node=, name=, ...)")},
      {"Enter", Top::tr("drill down: job or node detail")},
      {"Esc", Top::tr("back, or clear the filter")},
      {"Up Down PgUp PgDn Home End  j k", Top::tr("move the selection")},
      {"Left Right Up Down  h j k l", Top::tr("heatmap: move to the GPU beside, above or below")},
      {"s S", Top::tr("sort by the next column / reverse")},
      {"g", Top::tr("group jobs by team")},
      {"L Tab", Top::tr("next heatmap layer")},
      {"q Ctrl+C", Top::tr("quit")}};
  if (!s.ui.readonly) {
    keys.push_back({"h r", Top::tr("hold / release the job")});
    keys.push_back({"p x", Top::tr("preempt / cancel the job")});
    keys.push_back({"P", Top::tr("set the priority class")});
    keys.push_back({"t b", Top::tr("move to the top / bottom of the queue")});
    keys.push_back({"n", Top::tr("pin the job to a node")});
    keys.push_back({"d u", Top::tr("drain (with a reason) / undrain the node")});
  }
  const int kw = std::min(34, w / 2);
  for (int i = 0; i < h && i < static_cast<int>(keys.size()); ++i) {
    scr.put(x + 1, y + i, keys[static_cast<size_t>(i)].first, Role::Key, kw);
    scr.put(x + 2 + kw, y + i, str(keys[static_cast<size_t>(i)].second), Role::Normal, w - kw - 2);
  }
}

}  // namespace tessera::tui
