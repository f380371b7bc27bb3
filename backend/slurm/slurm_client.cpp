#include "slurm/slurm_client.h"

#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <ctime>

#include "core/strings.h"

namespace tessera::slurm {

namespace {

std::string id(int64_t jobId) {
  return std::to_string(jobId);
}

std::string jobArg(int64_t jobId) {
  return "JobId=" + id(jobId);
}

// Slurm prints "sbatch: error: ..." and similar: the last non-empty line is the message.
std::string slurmMessage(const CommandResult& r) {
  std::string_view text = trim(r.err.empty() ? r.out : r.err);
  if (text.empty()) return r.describe();
  return std::string(text);
}

Error commandError(const std::vector<std::string>& argv, const CommandResult& r) {
  std::string message = join(argv, " ") + ": " + slurmMessage(r);
  if (r.timedOut || r.signal != 0 || r.outputLimitHit) message += " (" + r.describe() + ")";
  // "Invalid job id specified": the job is gone (finished long ago, or never existed).
  const auto refusal = contains(r.err, "Invalid job id") ? Refusal::NotFound : Refusal::WrongState;
  return Error{std::move(message), {}, {}, refusal};
}

// --export=ALL,NAME=value,...: Slurm splits the list at commas and unquotes quoted items, so a
// name must be a plain identifier and a value free of commas and quotes.
Status validateEnvironment(const std::vector<std::pair<std::string, std::string>>& environment) {
  for (const auto& [name, value] : environment) {
    const bool plainName = !name.empty() &&
                           !std::isdigit(static_cast<unsigned char>(name.front())) &&
                           std::all_of(name.begin(), name.end(),
                                       [](unsigned char c) { return std::isalnum(c) || c == '_'; });
    if (!plainName) return Error{"submit: environment variable name '" + name + "' is invalid", {}};
    if (value.find_first_of(",'\"\n") != std::string::npos)
      return Error{"submit: environment variable " + name + " = '" + value +
                       "': sbatch --export cannot carry a comma, quote or newline",
                   {}};
  }
  return okStatus();
}

Status validate(const SubmitRequest& r) {
  if (r.tesseraId.empty()) return Error{"submit: tesseraId is required", {}};
  for (char c : r.tesseraId)
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r')
      return Error{"submit: tesseraId '" + r.tesseraId + "' contains whitespace", {}};
  if (r.timeLimitMinutes <= 0) return Error{"submit: a time limit (minutes > 0) is required", {}};
  if (r.nodes < 1) return Error{"submit: nodes must be at least 1", {}};
  if (r.maxNodes != 0 && r.maxNodes < r.nodes) return Error{"submit: maxNodes is below nodes", {}};
  if (r.tasks < 0 || r.cpusPerTask < 0)
    return Error{"submit: tasks and cpusPerTask cannot be negative", {}};
  if (r.wrap.has_value() == r.script.has_value())
    return Error{"submit: give exactly one of a command (wrap) or a batch script", {}};
  return validateEnvironment(r.environment);
}

std::string exportArgument(const std::vector<std::pair<std::string, std::string>>& environment) {
  std::string out = "--export=ALL";
  for (const auto& [name, value] : environment) out += "," + name + "=" + value;
  return out;
}

// "-p" + value when value is set: the flag and its value as separate arguments, never joined
// into one string a shell would split.
void optional(std::vector<std::string>& args, const char* flag, const std::string& value) {
  if (value.empty()) return;
  args.emplace_back(flag);
  args.push_back(value);
}

// Local time in Slurm's input format: 2026-11-27T06:28:22.
std::string slurmTime(int64_t epoch) {
  const auto t = static_cast<std::time_t>(epoch);
  std::tm local{};
  localtime_r(&t, &local);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &local);
  return buf;
}

std::string currentUser() {
  const uid_t uid = ::geteuid();
  passwd pw{};
  passwd* found = nullptr;
  std::string buf(4096, '\0');
  if (::getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found != nullptr)
    return pw.pw_name;
  return "uid " + std::to_string(uid);
}

}  // namespace

Expected<std::vector<std::string>> sbatchArguments(const SubmitRequest& r) {
  TESSERA_CHECK(validate(r));
  std::vector<std::string> args{
      "--parsable",
      "--hold",
      "--requeue",
      "--comment=" + std::string(kTesseraTag) + r.tesseraId,
      "--time=" + std::to_string(r.timeLimitMinutes),
      "--nodes=" + std::to_string(r.nodes) +
          (r.maxNodes > r.nodes ? "-" + std::to_string(r.maxNodes) : std::string())};
  optional(args, "--job-name", r.name);
  optional(args, "--partition", r.partition);
  optional(args, "--account", r.account);
  if (!r.gres.empty()) args.push_back("--gres=" + r.gres);
  if (r.tasks > 0) args.push_back("--ntasks=" + std::to_string(r.tasks));
  if (!r.gpusPerTask.empty()) args.push_back("--gpus-per-task=" + r.gpusPerTask);
  if (r.cpusPerTask > 0) args.push_back("--cpus-per-task=" + std::to_string(r.cpusPerTask));
  optional(args, "--chdir", r.workDir);
  optional(args, "--output", r.output);
  optional(args, "--error", r.error);
  if (!r.environment.empty()) args.push_back(exportArgument(r.environment));
  if (r.wrap) {
    args.emplace_back("--wrap");
    args.push_back(*r.wrap);
  }
  return args;
}

SlurmClient::SlurmClient(CommandRunner& runner, SlurmClientOptions options)
    : runner_(runner), options_(std::move(options)) {}

Expected<CommandResult> SlurmClient::run(std::vector<std::string> argv,
                                         std::chrono::milliseconds timeout,
                                         std::optional<std::string> input) {
  CommandRequest request;
  if (!options_.binDir.empty()) argv[0] = options_.binDir + "/" + argv[0];
  request.argv = std::move(argv);
  request.timeout = timeout;
  request.environment = options_.environment;
  request.stdinData = std::move(input);
  TESSERA_TRY(result, runner_.run(request));
  if (!result.ok()) return commandError(request.argv, result);
  return result;
}

Status SlurmClient::runSiteCommand(std::vector<std::string> argv,
                                   std::chrono::milliseconds timeout) {
  CommandRequest request;
  request.argv = std::move(argv);
  request.timeout = timeout;
  request.environment = options_.environment;
  TESSERA_TRY(result, runner_.run(request));
  if (!result.ok()) return commandError(request.argv, result);
  return okStatus();
}

Status SlurmClient::scontrol(std::vector<std::string> args) {
  args.insert(args.begin(), "scontrol");
  TESSERA_TRY(result, run(std::move(args), options_.writeTimeout));
  return okStatus();
}

Expected<std::string> SlurmClient::read(std::vector<std::string> argv) {
  TESSERA_TRY(result, run(std::move(argv), options_.readTimeout));
  return std::move(result.out);
}

Expected<int64_t> SlurmClient::submitHeld(const SubmitRequest& request) {
  TESSERA_TRY(args, sbatchArguments(request));
  args.insert(args.begin(), "sbatch");
  TESSERA_TRY(result, run(args, options_.writeTimeout, request.script));
  // --parsable: "<id>" or "<id>;<cluster>".
  const std::string_view out = trim(result.out);
  const auto jobId = parseInt(out.substr(0, out.find(';')));
  if (!jobId || *jobId <= 0)
    return Error{"sbatch printed no job id: '" + std::string(out) + "'", {}};
  return int64_t{*jobId};
}

Expected<std::vector<SlurmJob>> SlurmClient::findByTag(const std::string& tesseraId) {
  // Never by job id alone: ids are handed out again after a controller loses its state.
  TESSERA_TRY(text, read({"squeue", "--json", "--states=all"}));
  TESSERA_TRY(doc, parseSqueueJson(text));
  std::vector<SlurmJob> found;
  for (auto& job : doc.jobs)
    if (job.tesseraId == tesseraId) found.push_back(std::move(job));
  return found;
}

Status SlurmClient::pin(int64_t jobId, const std::vector<std::string>& nodes) {
  if (nodes.empty()) return Error{"pin: no nodes given", {}};
  // NumNodes must equal the list's length: a longer list than NumNodes is BadConstraints.
  return scontrol({"update", jobArg(jobId), "ReqNodeList=" + join(nodes, ","),
                   "NumNodes=" + std::to_string(nodes.size())});
}

Status SlurmClient::release(int64_t jobId) {
  return scontrol({"release", id(jobId)});
}

Status SlurmClient::hold(int64_t jobId) {
  return scontrol({"hold", id(jobId)});
}

Status SlurmClient::scancel(std::vector<std::string> args) {
  // scancel exits 0 even for an unknown job id, and says so only with --verbose:
  // "scancel: error: Kill job error on job id 9: Invalid job id specified".
  args.insert(args.begin(), {"scancel", "--verbose"});
  TESSERA_TRY(result, run(args, options_.writeTimeout));
  for (auto line : split(result.err, '\n')) {
    // A job that already ended is what the caller wanted: no error.
    if (contains(line, "error:") && !contains(line, "already completing or completed")) {
      CommandResult failed = result;
      failed.err = std::string(line);
      return commandError(args, failed);
    }
  }
  return okStatus();
}

Status SlurmClient::cancel(int64_t jobId) {
  return scancel({id(jobId)});
}

Status SlurmClient::signal(int64_t jobId, int signalNumber, SignalScope scope) {
  std::vector<std::string> args{"--signal=" + std::to_string(signalNumber)};
  if (scope == SignalScope::All) args.emplace_back("--full");
  if (scope == SignalScope::BatchShell) args.emplace_back("--batch");
  args.push_back(id(jobId));
  return scancel(std::move(args));
}

Status SlurmClient::requeueHold(int64_t jobId) {
  return scontrol({"requeuehold", id(jobId)});
}

Status SlurmClient::startNow(int64_t jobId) {
  return scontrol({"update", jobArg(jobId), "StartTime=now"});
}

Status SlurmClient::setPriority(int64_t jobId, int64_t priority) {
  return scontrol({"update", jobArg(jobId), "Priority=" + std::to_string(priority)});
}

Status SlurmClient::setComment(int64_t jobId, const std::string& comment) {
  return scontrol({"update", jobArg(jobId), "Comment=" + comment});
}

Status SlurmClient::drain(const std::string& node, const std::string& reason) {
  if (trim(reason).empty()) return Error{"drain: Slurm requires a reason", {}};
  return scontrol({"update", "NodeName=" + node, "State=DRAIN", "Reason=" + reason});
}

Status SlurmClient::resume(const std::string& node) {
  return scontrol({"update", "NodeName=" + node, "State=RESUME"});
}

Status SlurmClient::createReservation(const ReservationRequest& r) {
  if (r.name.empty() || r.nodes.empty() || r.durationMinutes <= 0)
    return Error{"reservation: a name, nodes and a duration (minutes > 0) are required", {}};
  const std::string start = r.startTime ? slurmTime(*r.startTime) : "now";
  // IGNORE_JOBS: running jobs on the nodes do not block creating it (they end on their own).
  return scontrol({"create", "reservation", "ReservationName=" + r.name, "StartTime=" + start,
                   "Duration=" + std::to_string(r.durationMinutes), "Nodes=" + join(r.nodes, ","),
                   "Users=" + r.users,
                   std::string("Flags=") + (r.maintenance ? "MAINT,IGNORE_JOBS" : "IGNORE_JOBS")});
}

Expected<std::vector<std::string>> SlurmClient::reservations() {
  TESSERA_TRY(text, read({"scontrol", "-o", "show", "reservation"}));
  std::vector<std::string> names;
  if (text.find("No reservations in the system") != std::string::npos) return names;
  TESSERA_TRY(records, parseScontrolRecords(text));
  for (const KeyValues& r : records)
    if (r.has("ReservationName")) names.push_back(r.get("ReservationName"));
  return names;
}

Status SlurmClient::deleteReservation(const std::string& name) {
  return scontrol({"delete", "ReservationName=" + name});
}

// squeue and sinfo exit 0 with an empty list and an "errors" entry when slurmctld does not
// answer ("Failed while looking for jobs"): that list is no news that every job is gone.
template <typename Document>
Expected<Document> withoutErrors(Expected<Document> doc, const char* program) {
  if (!doc || doc->slurmErrors.empty()) return doc;
  std::string all;
  for (const std::string& e : doc->slurmErrors) all += (all.empty() ? "" : "; ") + e;
  return Error{std::string(program) + " --json reported: " + all, {}};
}

Expected<JobsDocument> SlurmClient::jobs() {
  TESSERA_TRY(text, read({"squeue", "--json"}));
  return withoutErrors(parseSqueueJson(text), "squeue");
}

Expected<std::vector<JobGlance>> SlurmClient::jobGlances() {
  // --array: one line per array task, as squeue --json lists them; --states=all: the finished
  // jobs too, which squeue --json always includes (it ignores filters).
  TESSERA_TRY(text, read({"squeue", "--noheader", "--array", "--states=all",
                          "--Format=" + std::string(kGlanceFormat)}));
  return parseJobGlances(text);
}

Expected<NodesDocument> SlurmClient::nodes() {
  TESSERA_TRY(text, read({"sinfo", "--json"}));
  return withoutErrors(parseSinfoJson(text), "sinfo");
}

Expected<std::vector<SlurmSwitch>> SlurmClient::topology() {
  TESSERA_TRY(text, read({"scontrol", "show", "topology"}));
  return parseShowTopology(text);
}

Expected<KeyValues> SlurmClient::config() {
  TESSERA_TRY(text, read({"scontrol", "show", "config"}));
  return parseShowConfig(text);
}

Status SlurmClient::checkPermissions() {
  if (::geteuid() == 0) return okStatus();
  TESSERA_TRY(conf, config());
  const std::string slurmUser = userNameOf(conf.get("SlurmUser"));
  const std::string me = currentUser();
  if (!slurmUser.empty() && slurmUser == me) return okStatus();
  return Error{"Tessera runs as '" + me + "', but Slurm lets only root or its SlurmUser ('" +
                   slurmUser +
                   "') pin, release, requeue and drain other users' jobs and nodes (without "
                   "slurmdbd there is no operator level): run tesserad as root or as '" +
                   slurmUser + "'",
               {},
               {},
               Refusal::WrongState};
}

}  // namespace tessera::slurm
