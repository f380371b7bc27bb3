#include "daemon/report_scheduler.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/strings.h"
#include "report/report_csv.h"
#include "report/report_json.h"

extern char** environ;

namespace tessera {
namespace fs = std::filesystem;

namespace {

// How long one render command may run before it is killed.
constexpr auto kRenderTimeLimit = std::chrono::minutes(5);

// "2026-03-29" of `t` in `zone` (formatReportTime's wall-clock form starts with the date).
std::string dateIn(Seconds t, const std::string& zone) {
  return formatReportTime(t, true, zone).substr(0, 10);
}

// `.NAME.SUFFIX` beside `path`'s file: a hidden working file in the same directory. (Built by
// appending: GCC 12 warns falsely about `"." + std::string`.)
std::string hiddenBeside(const fs::path& path, const std::string& suffix) {
  std::string name = ".";
  name += path.filename().string();
  name += suffix;
  return (path.parent_path() / name).string();
}

// The last `limit` characters of a file, for an error message.
std::string tailOf(const std::string& path, size_t limit = 400) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s.size() > limit ? "..." + s.substr(s.size() - limit) : s;
}

// The environment of a render command: tesserad's, plus an offscreen Qt platform when none is
// set (a service has no display; Qt would refuse to start without one).
std::vector<std::string> renderEnvironment() {
  std::vector<std::string> env;
  bool platform = false;
  for (char** e = environ; e && *e; ++e) {
    env.emplace_back(*e);
    platform = platform || env.back().starts_with("QT_QPA_PLATFORM=");
  }
  if (!platform) env.emplace_back("QT_QPA_PLATFORM=offscreen");
  return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Starts `argv` with its output in `log`, the signals tesserad blocks (SIGTERM, SIGINT for its
// sigwait) unblocked again, and the default dispositions.
Expected<pid_t> spawn(std::vector<std::string> argv, const std::string& log) {
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> env = renderEnvironment();
  auto args = pointers(argv);
  auto envp = pointers(env);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &files, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return Error{"cannot run the render command " + argv[0] + ": " + std::strerror(rc), {}};
  return pid;
}

std::string exitText(int status) {
  if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace

// ============================================================================ periods and files

std::vector<DuePeriod> duePeriods(Seconds lastChecked, Seconds now, const ReportSchedule& s,
                                  size_t index) {
  std::vector<DuePeriod> due;
  if (now <= lastChecked) return due;
  // From the period that holds lastChecked: its end is the first boundary after it.
  for (Seconds from = periodStart(s.every, lastChecked, s.timeZone);;) {
    const Seconds to = nextPeriodStart(s.every, from, s.timeZone);
    if (to > now || to <= from) break;
    if (to > lastChecked) due.push_back({index, from, to});
    from = to;
  }
  if (due.size() > kMaxCatchUpPeriods)
    due.erase(due.begin(), due.end() - static_cast<std::ptrdiff_t>(kMaxCatchUpPeriods));
  return due;
}

std::vector<DuePeriod> duePeriods(Seconds lastChecked, Seconds now,
                                  const std::vector<ReportSchedule>& schedules) {
  std::vector<DuePeriod> due;
  for (size_t i = 0; i < schedules.size(); ++i) {
    auto one = duePeriods(lastChecked, now, schedules[i], i);
    due.insert(due.end(), one.begin(), one.end());
  }
  return due;
}

std::string reportStem(const std::string& dir, const ReportSchedule& s, Seconds periodStart) {
  return (fs::path(dir) / (s.name + "-" + dateIn(periodStart, s.timeZone))).string();
}

std::string reportOutputPath(const std::string& stem, const std::string& format,
                             const ReportSchedule& s) {
  if (format != "csv") return stem + "." + format;
  // The CSV set is written table by table, the notes last: its file means the set is whole.
  Report shape;
  if (s.prices) shape.header.currency = s.prices->currency;
  return reportCsvPaths(shape, stem + ".csv").back();
}

std::optional<Seconds> newestWrittenPeriod(const std::string& dir, const ReportSchedule& s) {
  std::error_code ec;
  std::optional<Seconds> newest;
  const std::string prefix = s.name + "-";
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string file = it->path().filename().string();
    // <name>-YYYY-MM-DD followed by '.' (json, html, pdf) or '-' (the csv tables).
    if (!file.starts_with(prefix) || file.size() < prefix.size() + 11) continue;
    const char after = file[prefix.size() + 10];
    if (after != '.' && after != '-') continue;
    const auto start = parseReportTime(file.substr(prefix.size(), 10), s.timeZone, 0);
    if (start && (!newest || *start > *newest)) newest = *start;
  }
  return newest;
}

std::vector<std::string> renderArguments(const std::vector<std::string>& command,
                                         const std::string& json, const std::string& format,
                                         const std::string& out) {
  std::vector<std::string> argv = command;
  for (const char* a : {"report", "--input"}) argv.emplace_back(a);
  argv.push_back(json);
  argv.emplace_back("--format");
  argv.push_back(format);
  argv.emplace_back("-o");
  argv.push_back(out);
  return argv;
}

// ============================================================================ the scheduler

ReportScheduler::ReportScheduler(ReportsConfig config, Compute compute, Clock engineNow,
                                 const Logger& log)
    : config_(std::move(config)),
      compute_(std::move(compute)),
      engineNow_(std::move(engineNow)),
      log_(log) {}

ReportScheduler::~ReportScheduler() {
  stop();
}

void ReportScheduler::start(std::chrono::milliseconds poll) {
  thread_ = std::thread([this, poll] {
    while (!stopping()) {
      runOnce();
      std::unique_lock lock(mutex_);
      wake_.wait_for(lock, poll, [this] { return stopping(); });
    }
  });
}

void ReportScheduler::stop() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

size_t ReportScheduler::runOnce() {
  const Seconds now = engineNow_();
  if (!resumed_) {
    // After a restart: from the newest period that has a file (its missing formats included);
    // on the first start: from now.
    for (const ReportSchedule& s : config_.schedules)
      lastChecked_.push_back(std::min(now, newestWrittenPeriod(config_.dir, s).value_or(now)));
    resumed_ = true;
  }
  size_t written = 0;
  for (size_t i = 0; i < config_.schedules.size() && !stopping(); ++i) {
    const ReportSchedule& s = config_.schedules[i];
    // A clock behind the last check: a new database (simulated time starts again at zero).
    if (now < lastChecked_[i]) lastChecked_[i] = now;
    for (const DuePeriod& p : duePeriods(lastChecked_[i], now, s, i)) {
      if (stopping()) return written;
      const Logger::Fields where{{"schedule", s.name}, {"period", dateIn(p.from, s.timeZone)}};
      auto files = produce(s, p.from, p.to);
      if (!files && stopping()) {
        // Not a failure: the period is written after the restart (its files are missing).
        log_.info("report abandoned: shutting down", where);
        return written;
      }
      if (!files) {
        Logger::Fields f = where;
        f.emplace_back("error", files.error().str());
        log_.error("report failed", f);
      } else if (!files->empty()) {
        Logger::Fields f = where;
        f.emplace_back("files", join(*files, ","));
        log_.info("report written", f);
        ++written;
      }
      lastChecked_[i] = p.to;
    }
    lastChecked_[i] = std::max(lastChecked_[i], now);
  }
  return written;
}

Expected<std::vector<std::string>> ReportScheduler::produce(const ReportSchedule& s, Seconds from,
                                                            Seconds to) {
  const std::string stem = reportStem(config_.dir, s, from);
  std::vector<std::string> missing;
  for (const std::string& format : s.formats)
    if (!fs::exists(reportOutputPath(stem, format, s))) missing.push_back(format);
  if (missing.empty()) return std::vector<std::string>{};
  ReportRequest request;
  request.from = from;
  request.to = to;
  request.groupBy = s.groupBy;
  request.prices = s.prices;
  request.teams = s.teams;
  request.timeZone = s.timeZone;
  auto computed = compute_(request, [this] { return stopping(); });
  if (auto* e = std::get_if<ApiError>(&computed))
    return Error{std::string(errorKindName(e->kind)) + ": " + e->message, {}};
  const Report& report = std::get<Report>(computed);
  // html and pdf are rendered from the JSON: the one written here, or a temporary one.
  std::string renderInput = std::find(s.formats.begin(), s.formats.end(), "json") != s.formats.end()
                                ? stem + ".json"
                                : std::string();
  std::vector<std::string> written;
  Status st = okStatus();
  for (const std::string& format : missing) {
    st = writeFormat(report, stem, format, renderInput);
    if (!st) break;
    // The CSV set as one pattern in the log, not its last file.
    const fs::path file =
        format == "csv" ? fs::path(stem + "-*.csv") : fs::path(stem + "." + format);
    written.push_back(file.filename().string());
  }
  if (!renderInput.empty() && renderInput != stem + ".json") fs::remove(renderInput);
  if (!st) return st.error();
  return written;
}

Status ReportScheduler::writeFormat(const Report& report, const std::string& stem,
                                    const std::string& format, std::string& renderInput) {
  if (format == "csv") return writeReportCsv(report, stem + ".csv");
  if (format == "json") return writeReportJsonFile(report, stem + ".json");
  if (renderInput.empty() || !fs::exists(renderInput)) {
    if (renderInput.empty()) {
      renderInput = hiddenBeside(stem, ".render.json");
    }
    TESSERA_CHECK(writeReportJsonFile(report, renderInput));
  }
  return render(renderInput, format, stem + "." + format);
}

Status ReportScheduler::render(const std::string& json, const std::string& format,
                               const std::string& out) {
  if (config_.renderCommand.empty()) return Error{"no render command for " + format, {}};
  // Rendered under a temporary name and renamed: a killed render leaves no half file that a
  // restart would take for a finished one.
  const fs::path target(out);
  const std::string part = hiddenBeside(target.parent_path() / target.stem(), ".part." + format);
  const std::string log = part + ".log";
  TESSERA_TRY(pid, spawn(renderArguments(config_.renderCommand, json, format, part), log));
  const auto deadline = std::chrono::steady_clock::now() + kRenderTimeLimit;
  int status = 0;
  for (pid_t done = 0; (done = waitpid(pid, &status, WNOHANG)) != pid;) {
    if (done < 0 && errno != EINTR) return Error{"lost the render command's process", {}};
    if (stopping() || std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      fs::remove(part);
      fs::remove(log);
      return Error{stopping() ? "stopped while rendering " + format
                              : "the render command took longer than 5 minutes; killed",
                   {}};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  const std::string output = tailOf(log);
  fs::remove(log);
  std::error_code ec;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !fs::exists(part, ec)) {
    fs::remove(part, ec);
    return Error{
        join(renderArguments(config_.renderCommand, json, format, out), " ") + ": " +
            (WIFEXITED(status) && WEXITSTATUS(status) == 0 ? "wrote no file" : exitText(status)) +
            (output.empty() ? "" : ": " + output),
        {}};
  }
  fs::rename(part, out, ec);
  if (ec) return Error{"cannot rename " + part + " to " + out + ": " + ec.message(), {}};
  return okStatus();
}

}  // namespace tessera
