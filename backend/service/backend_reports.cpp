#include "service/backend.h"

#include <future>
#include <iterator>
#include <map>
#include <unordered_set>

#include "core/engine_text.h"
#include "core/strings.h"
#include "report/report_compute.h"
#include "report/report_time.h"
#include "service/backend_work.h"

namespace tessera {

using namespace backend_work;

namespace {

ApiError badReport(const std::string& field, const std::string& message) {
  return {ErrorKind::InvalidArgument, field + ": " + message};
}

// What can be checked without the database: the request's own fields.
std::optional<ApiError> checkReportFields(const ReportRequest& r) {
  if (auto st = checkTimeZone(r.timeZone); !st) return badReport("time_zone", st.error().message);
  if (!(r.idleThreshold >= 0 && r.idleThreshold <= 1))
    return badReport("idle_threshold", "must be between 0 and 1");
  if (r.idleMinDuration < 0) return badReport("idle_min_seconds", "must not be negative");
  if (r.from && r.to && *r.from >= *r.to)
    return badReport("to", "must be after from (" + std::to_string(*r.from) + " .. " +
                               std::to_string(*r.to) + ")");
  return std::nullopt;
}

// What needs the database's setup: the teams it knows and the range its data covers.
std::optional<ApiError> checkReportAgainst(const ReportSetup& setup, const ReportRequest& r) {
  for (const std::string& team : r.teams) {
    const auto& teams = setup.teams;
    if (std::any_of(teams.begin(), teams.end(), [&](const Team& t) { return t.name == team; }))
      continue;
    std::vector<std::string> known;
    for (const Team& t : teams) known.push_back(t.name);
    return badReport("teams", "unknown team '" + team + "' (known: " + join(known, ", ") + ")");
  }
  const Seconds from = r.from.value_or(setup.first), to = r.to.value_or(setup.last);
  if (from >= to)
    return badReport(r.from ? "from" : "to",
                     "the range is empty or inverted: from " +
                         formatReportTime(from, setup.wallClock, r.timeZone) + " is not before " +
                         formatReportTime(to, setup.wallClock, r.timeZone) +
                         (r.from && r.to ? "" : " (the database's data ends there)"));
  return std::nullopt;
}

}  // namespace

void Backend::report(ReportRequest request, Reply<Report> reply) {
  report(std::move(request), ReportLimits{}, std::move(reply));
}

void Backend::report(ReportRequest request, ReportLimits limits, Reply<Report> reply) {
  if (auto bad = checkReportFields(request)) {
    reply(std::move(*bad));
    return;
  }
  if (auto refused = startWorker([this, request = std::move(request), limits = std::move(limits),
                                  reply] { runReport(request, limits, reply); }))
    reply(std::move(*refused));
}

std::optional<ApiError> Backend::startWorker(std::function<void()> work) {
  std::lock_guard lock(reportMutex_);
  // Join the workers that finished, so a long-running backend does not collect dead threads.
  for (auto it = reports_.begin(); it != reports_.end();) {
    if (!it->done) {
      ++it;
      continue;
    }
    it->thread.join();
    it = reports_.erase(it);
  }
  if (reportsStopping_) return ApiError{ErrorKind::Unavailable, "the backend is shutting down"};
  if (reports_.size() >= kMaxReports)
    return ApiError{ErrorKind::ResourceExhausted,
                    "at most " + std::to_string(kMaxReports) +
                        " reports and backups run at a time; try again when one finished"};
  ReportWorker& worker = reports_.emplace_back();
  try {
    worker.thread = std::thread([&worker, work = std::move(work)] {
      work();
      worker.done = true;
    });
  } catch (const std::system_error& e) {
    reports_.pop_back();
    return ApiError{ErrorKind::ResourceExhausted,
                    std::string("cannot start a worker thread: ") + e.what()};
  }
  return std::nullopt;
}

void Backend::runReport(const ReportRequest& request, const ReportLimits& limits,
                        const Reply<Report>& reply) const {
  // Its own read-only connection: the engine's connection belongs to the engine thread.
  auto source = openReportDatabase(config_.database, config_.catalog);
  if (!source) {
    reply(ApiError{ErrorKind::Unavailable,
                   "the database cannot be read for a report: " + source.error().str()});
    return;
  }
  if (auto bad = checkReportAgainst((*source)->setup(), request)) {
    reply(std::move(*bad));
    return;
  }
  std::optional<ApiError> stoppedBy;
  const auto progress = [&](double) {
    if (reportsStopping_)
      stoppedBy = ApiError{ErrorKind::Unavailable, "the backend is shutting down"};
    else if (limits.deadline && Clock::now() > *limits.deadline)
      stoppedBy =
          ApiError{ErrorKind::DeadlineExceeded, "the report was not finished before the deadline"};
    else if (limits.cancelled && limits.cancelled())
      stoppedBy = ApiError{ErrorKind::Unavailable, "the call was cancelled"};
    return !stoppedBy;
  };
  auto computed = computeReport(**source, request, progress);
  if (computed) {
    reply(std::move(*computed));
    return;
  }
  if (stoppedBy) {
    reply(std::move(*stoppedBy));
    return;
  }
  // The request was checked above; what is left is a price missing from the table (the
  // caller's to fix) or a read that failed midway.
  const Error& e = computed.error();
  const bool prices =
      request.prices && !e.where.file.empty() && e.where.file == request.prices->file;
  reply(ApiError{prices ? ErrorKind::InvalidArgument : ErrorKind::Internal, e.str()});
}

void Backend::stopReports() {
  std::list<ReportWorker> running;
  {
    std::lock_guard lock(reportMutex_);
    reportsStopping_ = true;
    running.splice(running.end(), reports_);
  }
  // Workers see reportsStopping_ at their next progress call and reply "shutting down".
  for (ReportWorker& w : running)
    if (w.thread.joinable()) w.thread.join();
}

}  // namespace tessera
