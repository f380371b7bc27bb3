#pragma once
// Typed Slurm operations over the CLI (sbatch, squeue, sinfo, scontrol, scancel). Every call has
// a timeout, checks the exit status and returns Slurm's own stderr in its Error. The commands
// and their order are in docs/slurm.md ("Command layer").
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/expected.h"
#include "slurm/process_runner.h"
#include "slurm/scontrol_text.h"
#include "slurm/slurm_json.h"
#include "slurm/squeue_text.h"

namespace tessera::slurm {

struct SlurmClientOptions {
  // Variables for every command, e.g. SLURM_CONF of a cluster other than the default one.
  std::map<std::string, std::string> environment;
  std::string binDir;  // where the Slurm commands are; empty: PATH
  // Clients retry for about 9 s while slurmctld is unreachable: stay above that so the error is
  // Slurm's own "Unable to contact slurm controller" rather than our timeout.
  std::chrono::milliseconds readTimeout{20000};   // squeue, sinfo, scontrol show
  std::chrono::milliseconds writeTimeout{20000};  // sbatch, scontrol update, scancel
};

// A job Tessera submits, held until Tessera pins and releases it.
struct SubmitRequest {
  std::string tesseraId;     // required: --comment=tessera:<id>, how crash recovery finds the job
  std::string name;          // -J
  int timeLimitMinutes = 0;  // required: a job without a limit stalls backfill (docs/slurm.md)
  std::string partition;     // -p; empty: the default partition
  std::string account;       // -A; empty: the user's default
  int nodes = 1;             // -N
  int maxNodes = 0;          // -N nodes-maxNodes when above `nodes`: pinned to a count later
  std::string gres;          // per node, e.g. "gpu:h100:2"; empty: no GPUs
  int tasks = 0;             // --ntasks; 0: Slurm's default (one per node)
  std::string gpusPerTask;   // --gpus-per-task, e.g. "h100:2" or "a100_3g.40gb:1"
  int cpusPerTask = 0;       // --cpus-per-task; 0: Slurm's default
  std::string workDir;       // --chdir; empty: the caller's directory
  std::string output;        // -o; empty: Slurm's slurm-%j.out in workDir
  std::string error;         // -e; empty: with the output
  // Variables the job gets on top of the submitter's environment (--export=ALL,NAME=value,...),
  // e.g. an MPS client's limits. Slurm splits --export at commas: a value cannot hold one.
  std::vector<std::pair<std::string, std::string>> environment;
  // Exactly one of: a command for --wrap, or a batch script ("#!/bin/bash\n...") sent on stdin.
  std::optional<std::string> wrap;
  std::optional<std::string> script;
};

struct ReservationRequest {
  std::string name;
  std::vector<std::string> nodes;    // whole nodes: GPU-count reservations need slurmdbd
  std::optional<int64_t> startTime;  // seconds since the epoch; nullopt: now
  int durationMinutes = 0;
  std::string users = "root";  // Slurm requires Users= or Accounts=
  bool maintenance = false;    // Flags=MAINT: sinfo shows the nodes as in maintenance
  friend bool operator==(const ReservationRequest&, const ReservationRequest&) = default;
};

// Who receives a signal: every process of the job (scancel --full: the batch shell, its children
// and all steps; what a checkpoint request needs), only the batch shell (--batch), or only the
// srun steps (neither flag; Slurm's default).
enum class SignalScope : uint8_t { All, BatchShell, Steps };

class SlurmClient {
 public:
  explicit SlurmClient(CommandRunner& runner, SlurmClientOptions options = {});

  // sbatch --parsable --hold --requeue --comment=tessera:<id> ...: the new job's id.
  Expected<int64_t> submitHeld(const SubmitRequest& request);
  // Every job (any state) whose comment is tessera:<id>; several after a controller crash.
  Expected<std::vector<SlurmJob>> findByTag(const std::string& tesseraId);

  // ReqNodeList=<nodes> NumNodes=<count>. Accepted even when the nodes cannot host the job:
  // that shows only after release(), as Reason=BadConstraints.
  Status pin(int64_t jobId, const std::vector<std::string>& nodes);
  Status release(int64_t jobId);
  Status hold(int64_t jobId);
  // A job that already ended is no error; an unknown id is (Refusal::NotFound).
  Status cancel(int64_t jobId);
  Status signal(int64_t jobId, int signalNumber, SignalScope scope = SignalScope::All);
  // Back to pending and held (needs --requeue, which submitHeld sets); restarts with the next
  // pin + release (+ startNow, since a requeued job is not eligible for 121 s).
  Status requeueHold(int64_t jobId);
  Status startNow(int64_t jobId);
  // Absolute priority; rejected while the job is held, so after release().
  Status setPriority(int64_t jobId, int64_t priority);
  // Comment=<text>: how an adopted job gets its tessera:<id> tag.
  Status setComment(int64_t jobId, const std::string& comment);

  Status drain(const std::string& node, const std::string& reason);
  Status resume(const std::string& node);
  Status createReservation(const ReservationRequest& request);
  Status deleteReservation(const std::string& name);
  // The names of the reservations slurmctld has (scontrol show reservation -o).
  Expected<std::vector<std::string>> reservations();

  Expected<JobsDocument> jobs();  // one squeue --json
  // One light squeue (no JSON): every job's state, reason, priority and nodes.
  Expected<std::vector<JobGlance>> jobGlances();
  Expected<NodesDocument> nodes();  // one sinfo --json
  Expected<std::vector<SlurmSwitch>> topology();
  Expected<KeyValues> config();
  // A site command (the MIG hook; not one of Slurm's): argv as given, with the Slurm
  // environment. A non-zero exit or a timeout is an Error carrying its stderr.
  Status runSiteCommand(std::vector<std::string> argv, std::chrono::milliseconds timeout);
  // Pin, release and drain need root or SlurmUser (without slurmdbd there is no operator
  // level): an Error saying so, and how to fix it, for anyone else.
  Status checkPermissions();

 private:
  Expected<CommandResult> run(std::vector<std::string> argv, std::chrono::milliseconds timeout,
                              std::optional<std::string> input = std::nullopt);
  Status scontrol(std::vector<std::string> args);
  Status scancel(std::vector<std::string> args);
  Expected<std::string> read(std::vector<std::string> argv);

  CommandRunner& runner_;
  SlurmClientOptions options_;
};

// The sbatch arguments of a request (without the program name), or why it is not valid.
Expected<std::vector<std::string>> sbatchArguments(const SubmitRequest& request);

}  // namespace tessera::slurm
