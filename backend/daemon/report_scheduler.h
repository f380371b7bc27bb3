#pragma once
// Scheduled reports in tesserad (docs/tesserad.md#scheduled-reports): at every period boundary
// (a calendar day, week or month in the schedule's time zone, on the ENGINE clock) the report of
// the period that just ended is computed and written to DIR/<name>-<YYYY-MM-DD>.<ext>, the date
// being the period's first day. CSV and JSON are written in-process; HTML and PDF need Qt
// Widgets and Charts, which tesserad does not link, so a render command (`tessera report
// --input FILE.json --format pdf -o FILE.pdf`) makes them from the JSON.
//
// The files are the scheduler's memory: a format whose file exists is not written again, and
// after a restart every period from the newest one with a file up to now is checked, so periods
// missed while tesserad was down are written once. Without any file (the first start) nothing
// older than the start is written.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "core/expected.h"
#include "daemon/config.h"
#include "daemon/logger.h"
#include "service/session.h"

namespace tessera {

// One period of one schedule: [from, to).
struct DuePeriod {
  size_t schedule = 0;  // index into the schedules
  Seconds from = 0;
  Seconds to = 0;
  bool operator==(const DuePeriod&) const = default;
};

// At most this many periods of one schedule are caught up in one pass (the newest ones).
inline constexpr size_t kMaxCatchUpPeriods = 400;

// The periods of `schedule` that ended after `lastChecked` and no later than `now`, oldest
// first (a period ending exactly at `now` is due: its data is complete).
std::vector<DuePeriod> duePeriods(Seconds lastChecked, Seconds now, const ReportSchedule& schedule,
                                  size_t index = 0);
// The same for every schedule, in schedule order.
std::vector<DuePeriod> duePeriods(Seconds lastChecked, Seconds now,
                                  const std::vector<ReportSchedule>& schedules);

// DIR/<name>-<YYYY-MM-DD of periodStart in the schedule's zone> (no extension).
std::string reportStem(const std::string& dir, const ReportSchedule& schedule, Seconds periodStart);
// The file whose presence says `format` of that stem is written (for csv the last table file).
std::string reportOutputPath(const std::string& stem, const std::string& format,
                             const ReportSchedule& schedule);
// Where to start after a restart: the start of the newest period with a file in `dir`, or
// nullopt when there is none.
std::optional<Seconds> newestWrittenPeriod(const std::string& dir, const ReportSchedule& schedule);

// The argv tesserad runs to render `format` (html or pdf) of `json` into `out`.
std::vector<std::string> renderArguments(const std::vector<std::string>& command,
                                         const std::string& json, const std::string& format,
                                         const std::string& out);

class ReportScheduler {
 public:
  // Computes a report; `stopping` returns true once the scheduler is being stopped (the
  // computation may then give up). tesserad passes Backend::report.
  using Compute = std::function<std::variant<Report, ApiError>(
      const ReportRequest& request, const std::function<bool()>& stopping)>;
  using Clock = std::function<Seconds()>;  // the engine clock as of the last commit

  ReportScheduler(ReportsConfig config, Compute compute, Clock engineNow, const Logger& log);
  ~ReportScheduler();
  ReportScheduler(const ReportScheduler&) = delete;
  ReportScheduler& operator=(const ReportScheduler&) = delete;

  // Checks for due periods every `poll` of wall time on its own thread, until stop().
  void start(std::chrono::milliseconds poll = std::chrono::seconds(1));
  // Ends the thread: an unfinished report is abandoned, a running render command killed.
  void stop();

  // One check: writes what is due up to the engine clock; the number of periods written.
  // (start() calls it; tests call it directly.)
  size_t runOnce();
  // Writes the missing files of one period; the files written, or why it failed.
  Expected<std::vector<std::string>> produce(const ReportSchedule& schedule, Seconds from,
                                             Seconds to);

 private:
  Status writeFormat(const Report& report, const std::string& stem, const std::string& format,
                     std::string& renderInput);
  Status render(const std::string& json, const std::string& format, const std::string& out);
  [[nodiscard]] bool stopping() const { return stopping_.load(); }

  ReportsConfig config_;
  Compute compute_;
  Clock engineNow_;
  const Logger& log_;
  std::vector<Seconds> lastChecked_;  // per schedule; unset until the first check
  bool resumed_ = false;

  std::atomic<bool> stopping_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread thread_;
};

}  // namespace tessera
