#pragma once
// A small hand-built Report for the writer tests (every table filled, awkward names included),
// a field-by-field exact comparison of two Reports, and a tiny RFC 4180 CSV parser with helpers
// to read its cells back.
#include <QtTest>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "report/report.h"

namespace tessera::test {

// A team name a CSV writer must quote (comma and quote) and one an HTML writer must escape.
inline const std::string kAwkwardTeam = "beta, \"quoted\" team";
inline const std::string kHtmlTeam = "gamma<&>";

inline UsageFigures figures(double allocated, bool cost) {
  UsageFigures f;
  f.allocated = allocated;
  f.busy = allocated * 0.61;
  f.effective = allocated * 0.4321;
  f.measured = allocated * 0.97;
  f.idle = allocated * 0.125;
  f.wholeGpu = allocated * 0.65;
  f.mig = allocated * 0.2;
  f.fractional = allocated * 0.1;
  f.mps = allocated * 0.05;
  f.migSliceHours = allocated * 0.2 * 7 / 3;
  f.preemptions = 3;
  f.gpuHoursLost = 12.25;
  f.jobs = 42;
  if (cost) {
    f.cost = allocated * 2.0;
    f.idleCost = allocated * 0.25;
  }
  return f;
}

// Wall-clock report of 24 hours on a 64-GPU cluster; `currency` empty: no price table.
inline Report sampleReport(const std::string& currency = "EUR") {
  const bool cost = !currency.empty();
  Report r;
  ReportHeader& h = r.header;
  h.cluster = "atlas-prod";
  h.source = "/var/lib/tessera/atlas.db";
  h.from = 1762000000;  // 2025-11-01T12:26:40Z
  h.to = h.from + 24 * 3600;
  h.timeZone = "UTC";
  h.generatedAt = "2025-11-02T13:00:00Z";
  h.idleThreshold = 0.05;
  h.idleMinDuration = 1800;
  h.currency = currency;
  h.gpus = 64;
  r.capacityGpuHours = 1536;
  r.usage = {{"alpha", figures(1234.5678901, cost)},
             {kAwkwardTeam, figures(0.1 + 0.2, cost)},
             {kHtmlTeam, figures(98.76, cost)}};
  r.total = figures(1234.5678901 + 0.3 + 98.76, cost);
  r.mig = {{"alpha", "A100-80GB", "3g.40gb", 48.5, 194, cost ? std::optional(97.0) : std::nullopt},
           {kAwkwardTeam, "H100-80GB", "1g.10gb", 0.125, 0.125, std::nullopt}};
  r.idleJobs = {{1001, "alpha", 8, 36.75, 2, 7500, cost ? std::optional(73.5) : std::nullopt},
                {1002, kAwkwardTeam, 0.5, 1.0 / 3, 1, 2400, std::nullopt}};
  r.idleJobsTotal = 7;
  r.stranded = {{"mig_layout", 20.5, 20.5 / 1536}, {"fragmentation", 3.25, 3.25 / 1536}};
  r.waits = {{"high", 12, 3900, 7200, 9000, 9999.5, 4100.25, 2, 86400 + 4 * 3600},
             {"batch", 30, 45, 200, 300, 301, 70.5, 0, 0}};
  if (cost) {
    r.chargeback = {{"alpha", "research", 1234.5678901, 154.3, 2469.14, 308.64, 0.9},
                    {kAwkwardTeam, "ops, infra", 0.3, 0, 0.6, 0, 0.1}};
  }
  r.fairShare = {{"alpha", 2, 1234.5678901, 0.925, 0.5, 1.85},
                 {kAwkwardTeam, 1, 0.3, 0.0002, 0.25, 0.0008},
                 {kHtmlTeam, 1, 98.76, 0.074, 0.25, 0.296}};
  r.seriesStep = 3600;
  for (int i = 0; i < 24; ++i) {
    double a = 40 + 10 * std::sin(i / 4.0);
    r.series.push_back({h.from + i * 3600, 64, a, a * 0.6, a * 0.45});
  }
  r.notes = {"GPU utilization telemetry is missing for 3% of the allocated GPU-hours.",
             "A note with a comma, a \"quote\" and\na line break."};
  return r;
}

// Exact comparison (doubles with ==): the JSON round trip must not lose a bit.
#define TESSERA_SAME(field) \
  QVERIFY2(a.field == b.field, (std::string(#field) + " differs at " + where).c_str())

inline void compare(const UsageFigures& a, const UsageFigures& b, const std::string& where) {
  TESSERA_SAME(allocated);
  TESSERA_SAME(busy);
  TESSERA_SAME(effective);
  TESSERA_SAME(measured);
  TESSERA_SAME(idle);
  TESSERA_SAME(wholeGpu);
  TESSERA_SAME(mig);
  TESSERA_SAME(fractional);
  TESSERA_SAME(mps);
  TESSERA_SAME(migSliceHours);
  TESSERA_SAME(preemptions);
  TESSERA_SAME(gpuHoursLost);
  TESSERA_SAME(jobs);
  TESSERA_SAME(cost);
  TESSERA_SAME(idleCost);
}

inline void compare(const ReportHeader& a, const ReportHeader& b, const std::string& where) {
  TESSERA_SAME(cluster);
  TESSERA_SAME(source);
  TESSERA_SAME(from);
  TESSERA_SAME(to);
  TESSERA_SAME(wallClock);
  TESSERA_SAME(timeZone);
  TESSERA_SAME(generatedAt);
  TESSERA_SAME(groupBy);
  TESSERA_SAME(idleThreshold);
  TESSERA_SAME(idleMinDuration);
  TESSERA_SAME(currency);
  TESSERA_SAME(gpus);
}

template <class Row, class Each>
void compareRows(const std::vector<Row>& a, const std::vector<Row>& b, const std::string& name,
                 Each each) {
  QCOMPARE(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    each(a[i], b[i], name + "[" + std::to_string(i) + "]");
    if (QTest::currentTestFailed()) return;
  }
}

inline void compare(const Report& ra, const Report& rb) {
  compare(ra.header, rb.header, "header");
  compare(ra.total, rb.total, "total");
  {
    const Report& a = ra;
    const Report& b = rb;
    const std::string where = "report";
    TESSERA_SAME(capacityGpuHours);
    TESSERA_SAME(idleJobsTotal);
    TESSERA_SAME(seriesStep);
    TESSERA_SAME(notes);
  }
  compareRows(ra.usage, rb.usage, "usage", [](auto& a, auto& b, const std::string& where) {
    TESSERA_SAME(key);
    compare(a.figures, b.figures, where);
  });
  compareRows(ra.mig, rb.mig, "mig", [](auto& a, auto& b, const std::string& where) {
    TESSERA_SAME(key);
    TESSERA_SAME(model);
    TESSERA_SAME(profile);
    TESSERA_SAME(instanceHours);
    TESSERA_SAME(sliceHours);
    TESSERA_SAME(cost);
  });
  compareRows(ra.idleJobs, rb.idleJobs, "idle_jobs",
              [](auto& a, auto& b, const std::string& where) {
                TESSERA_SAME(job);
                TESSERA_SAME(team);
                TESSERA_SAME(gpus);
                TESSERA_SAME(idleGpuHours);
                TESSERA_SAME(episodes);
                TESSERA_SAME(longest);
                TESSERA_SAME(idleCost);
              });
  compareRows(ra.stranded, rb.stranded, "stranded", [](auto& a, auto& b, const std::string& where) {
    TESSERA_SAME(cause);
    TESSERA_SAME(gpuHours);
    TESSERA_SAME(shareOfCapacity);
  });
  compareRows(ra.waits, rb.waits, "waits", [](auto& a, auto& b, const std::string& where) {
    TESSERA_SAME(priorityClass);
    TESSERA_SAME(started);
    TESSERA_SAME(p50);
    TESSERA_SAME(p95);
    TESSERA_SAME(p99);
    TESSERA_SAME(max);
    TESSERA_SAME(mean);
    TESSERA_SAME(waitingAtEnd);
    TESSERA_SAME(longestWaitingAtEnd);
  });
  compareRows(ra.chargeback, rb.chargeback, "chargeback",
              [](auto& a, auto& b, const std::string& where) {
                TESSERA_SAME(team);
                TESSERA_SAME(department);
                TESSERA_SAME(allocated);
                TESSERA_SAME(idle);
                TESSERA_SAME(cost);
                TESSERA_SAME(idleCost);
                TESSERA_SAME(shareOfCost);
              });
  compareRows(ra.fairShare, rb.fairShare, "fair_share",
              [](auto& a, auto& b, const std::string& where) {
                TESSERA_SAME(team);
                TESSERA_SAME(weight);
                TESSERA_SAME(gpuHours);
                TESSERA_SAME(usageShare);
                TESSERA_SAME(deservedShare);
                TESSERA_SAME(ratio);
              });
  compareRows(ra.series, rb.series, "series", [](auto& a, auto& b, const std::string& where) {
    TESSERA_SAME(start);
    TESSERA_SAME(capacity);
    TESSERA_SAME(allocated);
    TESSERA_SAME(busy);
    TESSERA_SAME(effective);
  });
}
#undef TESSERA_SAME

using Records = std::vector<std::vector<std::string>>;

// RFC 4180: records end in CRLF (a lone LF is accepted too), quoted fields may hold commas,
// doubled quotes and line breaks. Returns the records, the header first.
inline Records parseCsv(std::string_view text) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch != '"')
        field += ch;
      else if (i + 1 < text.size() && text[i + 1] == '"')
        field += text[++i];
      else
        quoted = false;
    } else if (ch == '"') {
      quoted = true;
    } else if (ch == ',') {
      record.push_back(std::move(field));
      field.clear();
    } else if (ch == '\n' || ch == '\r') {
      if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      record.push_back(std::move(field));
      field.clear();
      records.push_back(std::move(record));
      record.clear();
    } else {
      field += ch;
    }
  }
  if (!field.empty() || !record.empty()) {
    record.push_back(std::move(field));
    records.push_back(std::move(record));
  }
  return records;
}

// The field `column` of data row `row` (0 = the first after the header).
inline std::string cell(const Records& t, size_t row, const std::string& column) {
  const auto& header = t.at(0);
  auto it = std::find(header.begin(), header.end(), column);
  if (it == header.end()) return "<no column " + column + ">";
  return t.at(row + 1).at(size_t(it - header.begin()));
}

inline double number(const std::string& text) {
  double v = std::numeric_limits<double>::quiet_NaN();
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// 15 significant digits: far inside the 1e-6 relative the format promises.
inline bool near(const std::string& text, double expected) {
  return std::abs(number(text) - expected) <= 1e-13 * std::max(1.0, std::abs(expected));
}

#define CHECK_NUM(table, row, column, expected)      \
  QVERIFY2(near(cell(table, row, column), expected), \
           (std::string(column) + " = '" + cell(table, row, column) + "'").c_str())

// A report by job with `rows` usage rows, for the row caps.
inline Report manyJobs(size_t rows) {
  Report r = sampleReport();
  r.header.groupBy = ReportGroup::Job;
  r.usage.clear();
  for (size_t i = 0; i < rows; ++i) {
    r.usage.push_back({std::to_string(100000 + i), figures(double(rows - i), true)});
  }
  return r;
}

}  // namespace tessera::test
