// The table sections of the report document. Text is English on purpose (report_document.h).
#include <QLocale>

#include <algorithm>
#include <cmath>

#include "report_document.h"
#include "report_document_p.h"

namespace tessera::report_detail {
namespace {

const QLocale& english() {
  static const QLocale locale(QLocale::English, QLocale::UnitedStates);
  return locale;
}

const QString kNone = QStringLiteral("\u2013");  // en dash: no value

QString optionalMoney(const std::optional<double>& v) {
  return v ? money(*v) : kNone;
}

QString currencyTitle(const QString& what, const Report& r) {
  return what + " (" + esc(r.header.currency) + ")";
}

bool hasCost(const Report& r) {
  return !r.header.currency.empty();
}

// Busy and effective cover only the GPU-hours with telemetry, so their share is of `measured`.
QString busyShare(const UsageFigures& f) {
  return f.measured > 0 ? percent(f.busy / f.measured) : kNone;
}

QStringList usageCells(const QString& key, const UsageFigures& f, bool cost) {
  QStringList c = {key,
                   gpuHours(f.allocated),
                   gpuHours(f.busy),
                   busyShare(f),
                   gpuHours(f.effective),
                   gpuHours(f.idle),
                   gpuHours(f.mig),
                   gpuHours(f.fractional),
                   gpuHours(f.mps),
                   count(f.jobs),
                   count(static_cast<unsigned long long>(std::max(f.preemptions, 0)))};
  if (cost) c << optionalMoney(f.cost) << optionalMoney(f.idleCost);
  return c;
}

// Adds the first kReportTableRowCap rows; returns the note for the rest.
template <class Row, class Cells>
QString addCapped(HtmlTable& table, const std::vector<Row>& rows, Cells cells) {
  const size_t shown = std::min(rows.size(), kReportTableRowCap);
  for (size_t i = 0; i < shown; ++i) table.addRow(cells(rows[i]));
  return capNote(shown, rows.size());
}

QString emptyNote(const QString& what) {
  return "<p><i>" + what + "</i></p>\n";
}

}  // namespace

QString gpuHours(double v) {
  return decimal(v, 1);
}
QString money(double v) {
  return decimal(v, 2);
}
QString percent(double fraction) {
  return decimal(fraction * 100, 1) + "%";
}
QString decimal(double v, int decimals) {
  if (!std::isfinite(v)) return kNone;
  // -0.0 after rounding would print as "-0.0".
  if (std::abs(v) < 0.5 * std::pow(10.0, -decimals)) v = 0;
  return english().toString(v, 'f', decimals);
}
QString count(unsigned long long v) {
  return english().toString(v);
}

QString duration(double seconds) {
  if (!std::isfinite(seconds)) return kNone;
  const auto total = static_cast<long long>(std::llround(std::max(seconds, 0.0)));
  const long long d = total / 86400, h = total % 86400 / 3600, m = total % 3600 / 60,
                  s = total % 60;
  auto two = [](long long v) { return QString::number(v).rightJustified(2, '0'); };
  // The second unit only when it is not zero: "30m", "2h", "1h 05m".
  auto pair = [&](long long a, const char* ua, long long b, const char* ub) {
    QString text = QString::number(a) + ua;
    return b == 0 ? text : text + " " + two(b) + ub;
  };
  if (total < 60) return QString::number(s) + "s";
  if (total < 3600) return pair(m, "m", s, "s");
  if (total < 86400) return pair(h, "h", m, "m");
  return pair(d, "d", h, "h");
}

QString groupNoun(ReportGroup g) {
  return g == ReportGroup::GpuModel ? QString("GPU model") : groupTitle(g).toLower();
}

QString strandCauseTitle(const std::string& cause) {
  static const std::vector<std::pair<std::string, QString>> titles = {
      {"unavailable", "Unavailable (node down, draining or in repair)"},
      {"host_resources", "Host resources (CPUs or memory)"},
      {"mig_layout", "MIG layout"},
      {"fragmentation", "Fragmentation of shared GPUs"},
      {"quota", "Quota"},
      {"gang_topology", "Gang topology"},
  };
  for (const auto& [name, title] : titles) {
    if (name == cause) return title;
  }
  return esc(cause);
}

QString esc(const std::string& text) {
  return QString::fromStdString(text).toHtmlEscaped();
}

QString groupTitle(ReportGroup g) {
  switch (g) {
    case ReportGroup::Team:
      return "Team";
    case ReportGroup::Department:
      return "Department";
    case ReportGroup::Queue:
      return "Queue";
    case ReportGroup::Pool:
      return "Pool";
    case ReportGroup::GpuModel:
      return "GPU model";
    case ReportGroup::Node:
      return "Node";
    case ReportGroup::Job:
      return "Job";
  }
  return "Group";
}

void HtmlTable::addRow(const QStringList& cells, bool bold) {
  QString row = "<tr>";
  for (qsizetype i = 0; i < cells.size(); ++i) {
    const auto col = static_cast<size_t>(i);
    const bool numeric = col < cols_.size() && cols_[col].numeric;
    QString cell = bold ? "<b>" + cells[i] + "</b>" : cells[i];
    // Figures never break inside ("1,\n234.6"); names may.
    row += numeric ? "<td align=\"right\" nowrap>" + cell + "</td>" : "<td>" + cell + "</td>";
  }
  rows_ << row + "</tr>\n";
}

QString HtmlTable::html() const {
  QString out =
      "<table class=\"data\" border=\"1\" cellspacing=\"0\" cellpadding=\"3\" width=\"100%\">\n"
      "<thead><tr>";
  for (const Col& c : cols_) {
    out += QString("<th bgcolor=\"#e8ecf2\" align=\"%1\">%2</th>")
               .arg(c.numeric ? "right" : "left", c.title);
  }
  out += "</tr></thead>\n<tbody>\n" + rows_.join(QString()) + "</tbody></table>\n";
  return out;
}

QString heading(const QString& title, const char* anchor) {
  return QString("<h2><a name=\"%1\"></a>%2</h2>\n").arg(anchor, title);
}

QString capNote(size_t shown, size_t total) {
  if (shown >= total) return {};
  return QString("<p class=\"note\"><i>Showing the first %1 of %2 rows; the CSV has all.</i></p>\n")
      .arg(count(shown), count(total));
}

QString usageSection(const Report& r) {
  const bool cost = hasCost(r);
  // Short titles and the unit once above the table: thirteen columns share an A4 page.
  std::vector<HtmlTable::Col> cols = {{groupTitle(r.header.groupBy), false},
                                      {"Allocated"},
                                      {"Busy"},
                                      {"Busy %"},
                                      {"Effective"},
                                      {"Idle"},
                                      {"MIG"},
                                      {"Time-sliced"},
                                      {"MPS"},
                                      {"Jobs"},
                                      {"Preemptions"}};
  if (cost) cols.insert(cols.end(), {{"Cost"}, {"Idle cost"}});
  QString out = heading("Usage by " + groupNoun(r.header.groupBy), "usage");
  if (r.usage.empty()) return out + emptyNote("No GPUs were allocated in this period.");
  out += "<p>GPU-hours, except jobs and preemptions; busy % is of the GPU-hours with telemetry";
  out += cost ? "; costs in " + esc(r.header.currency) + ".</p>\n" : QString(".</p>\n");
  HtmlTable t(std::move(cols));
  QString note = addCapped(
      t, r.usage, [&](const UsageRow& u) { return usageCells(esc(u.key), u.figures, cost); });
  t.addRow(usageCells("Total", r.total, cost), true);
  return out + t.html() + note;
}

QString migSection(const Report& r) {
  const bool cost = hasCost(r);
  std::vector<HtmlTable::Col> cols = {{groupTitle(r.header.groupBy), false},
                                      {"GPU model", false},
                                      {"MIG profile", false},
                                      {"Instance-hours"},
                                      {"Slice-hours"}};
  if (cost) cols.push_back({currencyTitle("Cost", r)});
  QString out = heading("MIG instances", "mig");
  if (r.mig.empty()) return out + emptyNote("No MIG instances were allocated in this period.");
  HtmlTable t(std::move(cols));
  QString note = addCapped(t, r.mig, [&](const MigProfileRow& m) {
    QStringList c = {esc(m.key), esc(m.model), esc(m.profile), gpuHours(m.instanceHours),
                     gpuHours(m.sliceHours)};
    if (cost) c << optionalMoney(m.cost);
    return c;
  });
  return out + t.html() + note;
}

QString idleJobsSection(const Report& r) {
  const bool cost = hasCost(r);
  std::vector<HtmlTable::Col> cols = {{"Job"},        {"Team", false},    {"GPUs"},
                                      {"Idle GPU-h"}, {"Idle stretches"}, {"Longest idle"}};
  if (cost) cols.push_back({currencyTitle("Idle cost", r)});
  QString out = heading("Idle jobs", "idle-jobs");
  if (r.idleJobs.empty()) return out + emptyNote("No job held GPUs idle by the rule above.");
  const size_t total = std::max(r.idleJobsTotal, r.idleJobs.size());
  out +=
      QString(
          "<p>Jobs that held GPUs while they sat idle, most idle GPU-hours first: %1 of %2.</p>\n")
          .arg(count(r.idleJobs.size()), count(total));
  HtmlTable t(std::move(cols));
  QString note = addCapped(t, r.idleJobs, [&](const IdleJobRow& j) {
    QStringList c = {QString::number(j.job),
                     esc(j.team),
                     decimal(j.gpus, 2),
                     gpuHours(j.idleGpuHours),
                     count(static_cast<unsigned long long>(std::max(j.episodes, 0))),
                     duration(double(j.longest))};
    if (cost) c << optionalMoney(j.idleCost);
    return c;
  });
  return out + t.html() + note;
}

QString strandedSection(const Report& r) {
  QString out = heading("Stranded capacity", "stranded");
  out += "<p>Free GPU capacity nobody could use while GPU work waited, by cause.</p>\n";
  if (r.stranded.empty()) return out + emptyNote("No capacity was stranded in this period.");
  HtmlTable t({{"Cause", false}, {"Stranded GPU-h"}, {"Share of capacity"}});
  double hours = 0, share = 0;
  QString note = addCapped(t, r.stranded, [&](const StrandedRow& s) {
    hours += s.gpuHours;
    share += s.shareOfCapacity;
    return QStringList{strandCauseTitle(s.cause), gpuHours(s.gpuHours), percent(s.shareOfCapacity)};
  });
  t.addRow({"Total", gpuHours(hours), percent(share)}, true);
  return out + t.html() + note;
}

QString waitsSection(const Report& r) {
  QString out = heading("Queue waits", "waits");
  out +=
      "<p>Waits of the jobs that first started in this period, by priority class, and the "
      "jobs still waiting at its end.</p>\n";
  if (r.waits.empty()) return out + emptyNote("No job waited or started in this period.");
  HtmlTable t({{"Priority class", false},
               {"Started"},
               {"Median wait"},
               {"p95 wait"},
               {"p99 wait"},
               {"Longest wait"},
               {"Mean wait"},
               {"Waiting at end"},
               {"Longest waiting at end"}});
  QString note = addCapped(t, r.waits, [](const WaitRow& w) {
    return QStringList{
        esc(w.priorityClass), count(w.started),      duration(w.p50),
        duration(w.p95),      duration(w.p99),       duration(w.max),
        duration(w.mean),     count(w.waitingAtEnd), duration(w.longestWaitingAtEnd)};
  });
  return out + t.html() + note;
}

QString chargebackSection(const Report& r) {
  if (!hasCost(r)) return {};
  QString out = heading("Chargeback", "chargeback");
  if (r.chargeback.empty()) return out + emptyNote("No team was charged in this period.");
  HtmlTable t({{"Team", false},
               {"Department", false},
               {"Allocated GPU-h"},
               {"Idle GPU-h"},
               {currencyTitle("Cost", r)},
               {currencyTitle("Idle cost", r)},
               {"Share of cost"}});
  ChargebackRow sum;
  QString note = addCapped(t, r.chargeback, [&](const ChargebackRow& c) {
    sum.allocated += c.allocated;
    sum.idle += c.idle;
    sum.cost += c.cost;
    sum.idleCost += c.idleCost;
    sum.shareOfCost += c.shareOfCost;
    return QStringList{esc(c.team),   esc(c.department), gpuHours(c.allocated), gpuHours(c.idle),
                       money(c.cost), money(c.idleCost), percent(c.shareOfCost)};
  });
  if (note.isEmpty()) {  // a sum of the shown rows only when they are all the rows
    t.addRow({"Total", QString(), gpuHours(sum.allocated), gpuHours(sum.idle), money(sum.cost),
              money(sum.idleCost), percent(sum.shareOfCost)},
             true);
  }
  return out + t.html() + note;
}

QString fairShareSection(const Report& r) {
  QString out = heading("Fair share", "fair-share");
  out +=
      "<p>GPU-hours used against the share each team's weight entitles it to among the "
      "teams that had work (ratio 1 = fair).</p>\n";
  if (r.fairShare.empty()) return out + emptyNote("No team had work in this period.");
  HtmlTable t({{"Team", false},
               {"Weight"},
               {"GPU-hours"},
               {"Usage share"},
               {"Deserved share"},
               {"Usage / deserved"}});
  QString note = addCapped(t, r.fairShare, [](const FairShareRow& f) {
    return QStringList{esc(f.team),           decimal(f.weight, 2),     gpuHours(f.gpuHours),
                       percent(f.usageShare), percent(f.deservedShare), decimal(f.ratio, 2)};
  });
  return out + t.html() + note;
}

QString notesSection(const Report& r) {
  if (r.notes.empty()) return {};
  QString out = heading("Notes", "notes") + "<ul>\n";
  for (const auto& n : r.notes) out += "<li>" + esc(n) + "</li>\n";
  return out + "</ul>\n";
}

}  // namespace tessera::report_detail
