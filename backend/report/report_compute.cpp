#include "report/report_compute.h"

#include <algorithm>
#include <cmath>
#include <ctime>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "report/report_time.h"
#include "sim/metrics.h"

namespace tessera {
namespace {

constexpr double kHour = 3600.0;

// A group's running sums while the rows stream by.
struct GroupSums {
  UsageFigures f;
  double cost = 0, idleCost = 0;
  std::unordered_set<JobId> jobs;
};

struct MigSums {
  double instanceHours = 0, sliceHours = 0, cost = 0;
};

struct IdleSums {
  std::string team;
  double gpus = 0, idleGpuHours = 0, idleCost = 0;
  int episodes = 0;
  Seconds longest = 0;
};

// One stretch of a run with constant telemetry: [from, to) and the reading that covers it.
struct Stretch {
  Seconds from = 0, to = 0;
  UsageSample reading;
};

// The run's stretches by its readings (the first reading also covers the time before it).
std::vector<Stretch> stretchesOf(const UsageRecord& u, Seconds end) {
  std::vector<Stretch> out;
  const auto& s = u.samples;
  for (size_t i = 0; i < s.size(); ++i) {
    const Seconds from = i == 0 ? u.start : std::max(u.start, s[i].time);
    const Seconds to = i + 1 < s.size() ? std::min(end, s[i + 1].time) : end;
    if (to > from) out.push_back({from, to, s[i]});
  }
  return out;
}

double overlap(Seconds a0, Seconds a1, Seconds b0, Seconds b1) {
  return static_cast<double>(std::max<Seconds>(0, std::min(a1, b1) - std::max(a0, b0)));
}

// Idle episodes: maximal runs of measured stretches below the threshold lasting at least the
// minimum duration, judged over the whole run (an episode that began before the range counts
// when its whole length qualifies) and clipped to the range by the caller.
std::vector<std::pair<Seconds, Seconds>> idleEpisodes(const std::vector<Stretch>& stretches,
                                                      double threshold, Seconds minDuration) {
  std::vector<std::pair<Seconds, Seconds>> out;
  std::optional<std::pair<Seconds, Seconds>> cur;
  auto flush = [&] {
    if (cur && cur->second - cur->first >= minDuration) out.push_back(*cur);
    cur.reset();
  };
  for (const Stretch& s : stretches) {
    const bool idle = s.reading.measured() && s.reading.utilFraction() < threshold;
    if (!idle) {
      flush();
      continue;
    }
    if (cur && cur->second == s.from)
      cur->second = s.to;
    else {
      flush();
      cur = std::pair{s.from, s.to};
    }
  }
  flush();
  return out;
}

// The figure of `d` that a share of this kind counts in, besides `allocated`.
double& figureOf(UsageFigures& d, UsageKind kind) {
  switch (kind) {
    case UsageKind::Whole:
      break;
    case UsageKind::Mig:
      return d.mig;
    case UsageKind::Fraction:
      return d.fractional;
    case UsageKind::Mps:
      return d.mps;
  }
  return d.wholeGpu;
}

// The price of one GPU-hour of `model`; nullopt when the table has none.
std::optional<double> gpuHourPrice(const PriceTable& t, const std::string& model) {
  if (const auto it = t.gpuHour.find(model); it != t.gpuHour.end()) return it->second;
  return t.defaultGpuHour;
}

// The cost of holding `u`'s share for `seconds`; nullopt when the table has no price for it.
std::optional<double> costOf(const PriceTable& t, const UsageRecord& u, double seconds) {
  if (u.kind == UsageKind::Mig) {
    const auto m = t.migInstanceHour.find(u.share.model);
    if (m != t.migInstanceHour.end())
      if (const auto p = m->second.find(u.profile); p != m->second.end())
        return p->second * u.share.units * seconds / kHour;
  }
  const auto price = gpuHourPrice(t, u.share.model);
  if (!price) return std::nullopt;
  return *price * u.share.gpus * seconds / kHour;
}

// Mean of a step-function series over [from, to): each point holds until the next; the first
// also covers the time before it, the last the time after it.
double integrate(const std::vector<MetricPoint>& points, Seconds from, Seconds to) {
  double sum = 0;
  for (size_t i = 0; i < points.size(); ++i) {
    const Seconds a = i == 0 ? from : std::max(from, points[i].time);
    const Seconds b = i + 1 < points.size() ? std::min(to, points[i + 1].time) : to;
    if (b > a) sum += points[i].value * static_cast<double>(b - a);
  }
  return sum;
}

Seconds seriesStepFor(Seconds span) {
  for (Seconds step : {Seconds{300}, Seconds{900}, Seconds{3600}, Seconds{6 * 3600}, Seconds{86400},
                       Seconds{7 * 86400}})
    if (span / step <= 400) return step;
  return 30 * 86400;
}

class Computation {
 public:
  Computation(const ReportSource& source, const ReportRequest& request, Seconds from, Seconds to)
      : source_(source), req_(request), from_(from), to_(to) {
    for (const Team& t : source.setup().teams) parent_[t.name] = t.parent;
    report_.seriesStep = seriesStepFor(to - from);
    const size_t buckets =
        static_cast<size_t>((to - from + report_.seriesStep - 1) / report_.seriesStep);
    report_.series.resize(buckets);
    for (size_t i = 0; i < buckets; ++i)
      report_.series[i].start = from + static_cast<Seconds>(i) * report_.seriesStep;
  }

  Status usage(const ReportProgress& progress) {
    TESSERA_TRY(rows, source_.usageCount(from_, to_));
    size_t seen = 0;
    return source_.forEachUsage(from_, to_, [&](const UsageRecord& u) -> Status {
      if (++seen % 2048 == 0 && progress && rows > 0 &&
          !progress(0.9 * double(seen) / double(std::max(rows, seen))))
        return Error{"the report was cancelled", {}};
      if (!wanted(u.team)) return okStatus();
      return add(u);
    });
  }

  Status waits() {
    std::map<std::string, std::vector<double>> byClass;
    std::map<std::string, std::pair<size_t, double>> waiting;
    TESSERA_CHECK(source_.forEachJob(to_, [&](const JobAccount& j) -> Status {
      if (!wanted(j.team)) return okStatus();
      if (j.firstStart && *j.firstStart >= from_ && *j.firstStart < to_) {
        byClass[j.priorityClass].push_back(static_cast<double>(*j.firstStart - j.submit));
        activeTeams_.insert(j.team);
      } else if ((!j.firstStart || *j.firstStart >= to_) && !(j.end && *j.end < to_)) {
        auto& w = waiting[j.priorityClass];
        ++w.first;
        w.second = std::max(w.second, static_cast<double>(to_ - j.submit));
        activeTeams_.insert(j.team);
      }
      return okStatus();
    }));
    std::set<std::string> classes;
    for (const auto& [c, v] : byClass) classes.insert(c);
    for (const auto& [c, v] : waiting) classes.insert(c);
    for (const std::string& c : classes) {
      WaitRow row;
      row.priorityClass = c;
      if (const auto it = byClass.find(c); it != byClass.end()) {
        const Percentiles p = percentiles(it->second);
        row.started = p.count;
        row.p50 = p.p50, row.p95 = p.p95, row.p99 = p.p99, row.max = p.max, row.mean = p.mean;
      }
      if (const auto it = waiting.find(c); it != waiting.end())
        std::tie(row.waitingAtEnd, row.longestWaitingAtEnd) = it->second;
      report_.waits.push_back(row);
    }
    return okStatus();
  }

  Status clusterSeries() {
    const ReportSetup& setup = source_.setup();
    TESSERA_TRY(capacity, source_.series("gpus_capacity", from_, to_));
    const double span = static_cast<double>(to_ - from_);
    if (capacity.points.empty()) {
      report_.capacityGpuHours = setup.gpus * span / kHour;
      report_.notes.push_back("no capacity samples in the range: capacity is all " +
                              std::to_string(setup.gpus) + " GPUs of the cluster, all the time");
      for (ReportPoint& p : report_.series) p.capacity = setup.gpus;
    } else {
      report_.capacityGpuHours = integrate(capacity.points, from_, to_) / kHour;
      for (ReportPoint& p : report_.series) {
        const Seconds end = std::min(to_, p.start + report_.seriesStep);
        p.capacity = integrate(capacity.points, p.start, end) / double(end - p.start);
      }
    }
    bool anyStranded = false;
    for (size_t c = 0; c < kStrandCauses; ++c) {
      const auto cause = static_cast<StrandCause>(c);
      TESSERA_TRY(s, source_.series(strandedSeriesName(cause), from_, to_));
      anyStranded = anyStranded || !s.points.empty();
      StrandedRow row;
      row.cause = strandCauseName(cause);
      row.gpuHours = integrate(s.points, from_, to_) / kHour;
      row.shareOfCapacity =
          report_.capacityGpuHours > 0 ? row.gpuHours / report_.capacityGpuHours : 0;
      report_.stranded.push_back(row);
    }
    if (!anyStranded)
      report_.notes.push_back(
          "no stranded-capacity samples in the range: the stranded table is "
          "empty (the source recorded none)");
    return okStatus();
  }

  Status finish() {
    if (req_.prices && !missingPrices_.empty()) {
      std::string list;
      for (const auto& [model, hours] : missingPrices_)
        list += (list.empty() ? "" : ", ") + model + " (" + std::to_string(std::lround(hours)) +
                " GPU-hours)";
      return Error{"the price table " + req_.prices->file + " has no price for " + list +
                       ": add them under gpu_hour, or set default_gpu_hour",
                   {req_.prices->file, 0, 0, "gpu_hour"}};
    }
    groupRows();
    migRows();
    idleRows();
    teamRows();
    if (report_.total.allocated > 0 && report_.total.measured < 0.999 * report_.total.allocated)
      report_.notes.push_back(
          "telemetry covers " +
          std::to_string(std::lround(100 * report_.total.measured / report_.total.allocated)) +
          " % of the allocated GPU-hours: busy, effective and idle figures count only those "
          "(runs without telemetry, e.g. a live cluster without a DCGM source, add none)");
    return okStatus();
  }

  Report take() { return std::move(report_); }

 private:
  [[nodiscard]] bool wanted(const std::string& team) const {
    return req_.teams.empty() ||
           std::find(req_.teams.begin(), req_.teams.end(), team) != req_.teams.end();
  }

  std::string departmentOf(const std::string& team) const {
    const auto it = parent_.find(team);
    if (it == parent_.end()) return "(unknown)";
    return it->second.empty() ? team : it->second;
  }

  std::string keyOf(const UsageRecord& u) const {
    switch (req_.groupBy) {
      case ReportGroup::Team:
        return u.team;
      case ReportGroup::Department:
        return departmentOf(u.team);
      case ReportGroup::Queue:
        return u.priorityClass;
      case ReportGroup::Pool:
        return u.share.pool.empty() ? "(none)" : u.share.pool;
      case ReportGroup::GpuModel:
        return u.share.model;
      case ReportGroup::Node:
        return u.share.node;
      case ReportGroup::Job:
        return std::to_string(u.job);
    }
    return u.team;
  }

  Status add(const UsageRecord& u) {
    const Seconds end = u.end.value_or(std::max(u.start, source_.setup().last));
    const Seconds a = std::max(u.start, from_), b = std::min(end, to_);
    const double seconds = static_cast<double>(std::max<Seconds>(0, b - a));
    GroupSums& g = groups_[keyOf(u)];
    GroupSums& team = teams_[u.team];
    const bool preempted =
        u.part == 0 && u.endReason == "preempted" && u.end && *u.end >= from_ && *u.end < to_;
    if (preempted) {
      for (GroupSums* s : {&g, &team, &total_}) {
        ++s->f.preemptions;
        s->f.gpuHoursLost += u.gpuHoursLost;
      }
    }
    if (seconds <= 0) return okStatus();
    activeTeams_.insert(u.team);
    UsageFigures d;
    d.allocated = u.share.gpus * seconds / kHour;
    figureOf(d, u.kind) = d.allocated;
    d.migSliceHours = u.share.migSlices * seconds / kHour;
    const auto stretches = stretchesOf(u, end);
    for (const Stretch& s : stretches) {
      if (!s.reading.measured()) continue;
      const double gpuh = u.share.gpus * overlap(s.from, s.to, a, b) / kHour;
      d.measured += gpuh;
      d.busy += gpuh * s.reading.utilFraction();
      d.effective += gpuh * s.reading.smFraction();
      addToSeries(s.from, s.to, a, b, u.share.gpus, s.reading);
    }
    if (stretches.empty()) addToSeries(a, b, a, b, u.share.gpus, {});
    const auto episodes = idleEpisodes(stretches, req_.idleThreshold, req_.idleMinDuration);
    double idleSeconds = 0;
    IdleSums* idle = nullptr;
    for (const auto& [e0, e1] : episodes) {
      const double clipped = overlap(e0, e1, a, b);
      if (clipped <= 0) continue;
      idleSeconds += clipped;
      if (!idle) idle = &idleJobs_[u.job];
      if (u.part == 0) {
        ++idle->episodes;
        idle->longest = std::max(idle->longest, e1 - e0);
      }
    }
    d.idle = u.share.gpus * idleSeconds / kHour;
    std::optional<double> cost, idleCost;
    if (req_.prices) {
      cost = costOf(*req_.prices, u, seconds);
      if (!cost) {
        missingPrices_[u.share.model] += d.allocated;
        cost = 0;
      }
      idleCost = seconds > 0 ? *cost * idleSeconds / seconds : 0;
    }
    if (idle) {
      idle->team = u.team;
      idle->idleGpuHours += d.idle;
      idle->idleCost += idleCost.value_or(0);
    }
    runGpus_[{u.job, u.start}] += u.share.gpus;
    for (GroupSums* s : {&g, &team, &total_}) accumulate(*s, d, cost, idleCost, u.job);
    if (u.kind == UsageKind::Mig) {
      MigSums& m = mig_[{keyOf(u), u.share.model, u.profile}];
      m.instanceHours += u.share.units * seconds / kHour;
      m.sliceHours += d.migSliceHours;
      m.cost += cost.value_or(0);
    }
    return okStatus();
  }

  static void accumulate(GroupSums& s, const UsageFigures& d, std::optional<double> cost,
                         std::optional<double> idleCost, JobId job) {
    UsageFigures& f = s.f;
    f.allocated += d.allocated;
    f.busy += d.busy;
    f.effective += d.effective;
    f.measured += d.measured;
    f.idle += d.idle;
    f.wholeGpu += d.wholeGpu;
    f.mig += d.mig;
    f.fractional += d.fractional;
    f.mps += d.mps;
    f.migSliceHours += d.migSliceHours;
    s.cost += cost.value_or(0);
    s.idleCost += idleCost.value_or(0);
    s.jobs.insert(job);
  }

  // Spreads one stretch (clipped to [a, b)) over the series' buckets.
  void addToSeries(Seconds from, Seconds to, Seconds a, Seconds b, double gpus,
                   const UsageSample& reading) {
    const Seconds s0 = std::max(from, a), s1 = std::min(to, b);
    if (s1 <= s0) return;
    const Seconds step = report_.seriesStep;
    for (auto i = static_cast<size_t>((s0 - from_) / step); i < report_.series.size(); ++i) {
      ReportPoint& p = report_.series[i];
      const Seconds bucketEnd = std::min(to_, p.start + step);
      if (p.start >= s1) break;
      const double share = overlap(s0, s1, p.start, bucketEnd) / double(bucketEnd - p.start);
      p.allocated += gpus * share;
      if (reading.measured()) {
        p.busy += gpus * share * reading.utilFraction();
        p.effective += gpus * share * reading.smFraction();
      }
    }
  }

  UsageFigures figuresOf(const GroupSums& s) const {
    UsageFigures f = s.f;
    f.jobs = s.jobs.size();
    if (req_.prices) {
      f.cost = s.cost;
      f.idleCost = s.idleCost;
    }
    return f;
  }

  void groupRows() {
    report_.total = figuresOf(total_);
    for (const auto& [key, sums] : groups_) report_.usage.push_back({key, figuresOf(sums)});
    std::sort(report_.usage.begin(), report_.usage.end(), [](const auto& x, const auto& y) {
      return x.figures.allocated != y.figures.allocated ? x.figures.allocated > y.figures.allocated
                                                        : x.key < y.key;
    });
  }

  void migRows() {
    for (const auto& [key, m] : mig_) {
      MigProfileRow row{std::get<0>(key), std::get<1>(key), std::get<2>(key),
                        m.instanceHours,  m.sliceHours,     std::nullopt};
      if (req_.prices) row.cost = m.cost;
      report_.mig.push_back(row);
    }
  }

  void idleRows() {
    std::unordered_map<JobId, double> widest;
    for (const auto& [run, gpus] : runGpus_) widest[run.first] = std::max(widest[run.first], gpus);
    for (const auto& [job, s] : idleJobs_) {
      if (s.idleGpuHours <= 0) continue;
      IdleJobRow row{job, s.team, widest[job], s.idleGpuHours, s.episodes, s.longest, std::nullopt};
      if (req_.prices) row.idleCost = s.idleCost;
      report_.idleJobs.push_back(row);
    }
    std::sort(report_.idleJobs.begin(), report_.idleJobs.end(), [](const auto& x, const auto& y) {
      return x.idleGpuHours != y.idleGpuHours ? x.idleGpuHours > y.idleGpuHours : x.job < y.job;
    });
    report_.idleJobsTotal = report_.idleJobs.size();
    if (req_.topIdleJobs > 0 && report_.idleJobs.size() > req_.topIdleJobs)
      report_.idleJobs.resize(req_.topIdleJobs);
  }

  void teamRows() {
    double totalCost = 0;
    for (const auto& [team, s] : teams_) totalCost += s.cost;
    if (req_.prices)
      for (const auto& [team, s] : teams_)
        report_.chargeback.push_back({team, departmentOf(team), s.f.allocated, s.f.idle, s.cost,
                                      s.idleCost, totalCost > 0 ? s.cost / totalCost : 0});
    std::sort(report_.chargeback.begin(), report_.chargeback.end(),
              [](const auto& x, const auto& y) { return x.cost > y.cost; });
    // Deserved shares among the teams that had work (ran or waited) in the range, by weight.
    double weights = 0;
    std::map<std::string, double> weightOf;
    for (const Team& t : source_.setup().teams) weightOf[t.name] = t.weight;
    for (const std::string& t : activeTeams_) weights += weightOf.count(t) ? weightOf[t] : 1.0;
    const double used = total_.f.allocated;
    for (const std::string& t : activeTeams_) {
      FairShareRow row;
      row.team = t;
      row.weight = weightOf.count(t) ? weightOf[t] : 1.0;
      row.gpuHours = teams_.count(t) ? teams_.at(t).f.allocated : 0;
      row.usageShare = used > 0 ? row.gpuHours / used : 0;
      row.deservedShare = weights > 0 ? row.weight / weights : 0;
      row.ratio = row.deservedShare > 0 ? row.usageShare / row.deservedShare : 0;
      report_.fairShare.push_back(row);
    }
    std::sort(report_.fairShare.begin(), report_.fairShare.end(),
              [](const auto& x, const auto& y) { return x.ratio > y.ratio; });
  }

  const ReportSource& source_;
  const ReportRequest& req_;
  Seconds from_, to_;
  Report report_;
  std::unordered_map<std::string, std::string> parent_;
  std::map<std::string, GroupSums> groups_, teams_;
  GroupSums total_;
  std::map<std::tuple<std::string, std::string, std::string>, MigSums> mig_;
  std::unordered_map<JobId, IdleSums> idleJobs_;
  std::map<std::pair<JobId, Seconds>, double> runGpus_;  // GPUs of each run, over its nodes
  std::set<std::string> activeTeams_;
  std::map<std::string, double> missingPrices_;  // model -> GPU-hours without a price
};

Status checkRequest(const ReportSource& source, const ReportRequest& r) {
  for (const std::string& team : r.teams) {
    const auto& teams = source.setup().teams;
    if (std::none_of(teams.begin(), teams.end(), [&](const Team& t) { return t.name == team; })) {
      std::string known;
      for (const Team& t : teams) known += (known.empty() ? "" : ", ") + t.name;
      return Error{"unknown team '" + team + "' (the source knows: " + known + ")", {}};
    }
  }
  if (!(r.idleThreshold >= 0 && r.idleThreshold <= 1))
    return Error{"the idle threshold must be between 0 and 1", {}};
  if (r.idleMinDuration < 0) return Error{"the idle minimum duration must not be negative", {}};
  return checkTimeZone(r.timeZone);
}

std::string nowIso() {
  return isoUtc(static_cast<Seconds>(std::time(nullptr)));
}

}  // namespace

Expected<Report> computeReport(const ReportSource& source, const ReportRequest& request,
                               const ReportProgress& progress) {
  TESSERA_CHECK(checkRequest(source, request));
  const ReportSetup& setup = source.setup();
  const Seconds from = request.from.value_or(setup.first);
  const Seconds to = request.to.value_or(setup.last);
  if (from >= to)
    return Error{"the range is empty or inverted: from " +
                     formatReportTime(from, setup.wallClock, request.timeZone) +
                     " is not before to " + formatReportTime(to, setup.wallClock, request.timeZone),
                 {}};
  Computation c(source, request, from, to);
  TESSERA_CHECK(c.usage(progress));
  TESSERA_CHECK(c.waits());
  TESSERA_CHECK(c.clusterSeries());
  TESSERA_CHECK(c.finish());
  if (progress) (void)progress(1.0);
  Report report = c.take();
  ReportHeader& h = report.header;
  h.cluster = setup.cluster;
  h.source = setup.source;
  h.from = from;
  h.to = to;
  h.wallClock = setup.wallClock;
  h.timeZone = request.timeZone;
  h.generatedAt = nowIso();
  h.groupBy = request.groupBy;
  h.idleThreshold = request.idleThreshold;
  h.idleMinDuration = request.idleMinDuration;
  h.currency = request.prices ? request.prices->currency : "";
  h.gpus = setup.gpus;
  if (!request.teams.empty())
    report.notes.push_back(
        "only the teams asked for; capacity and stranded figures are "
        "cluster-wide");
  return report;
}

}  // namespace tessera
