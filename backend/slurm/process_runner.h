#pragma once
// Runs external commands (the Slurm CLI) without a shell: argv goes to execvp as it is, so a job
// name or reason with spaces, quotes, ';' or $(...) reaches the program literally.
#include <chrono>
#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <semaphore>
#include <string>
#include <vector>

#include "core/expected.h"

namespace tessera::slurm {

struct CommandRequest {
  std::vector<std::string> argv;         // argv[0] is looked up in PATH
  std::optional<std::string> stdinData;  // e.g. a batch script; stdin is /dev/null without it
  std::chrono::milliseconds timeout{30000};
  // After the timeout the process group gets SIGTERM, and SIGKILL this much later.
  std::chrono::milliseconds killGrace{2000};
  // Set (or override) these variables on top of this process's environment.
  std::map<std::string, std::string> environment;
  // Output past this many bytes (stdout + stderr) counts as a runaway: the group is killed.
  size_t outputLimit = size_t{256} << 20;
};

struct CommandResult {
  int exitCode = -1;  // the exit status; -1 when a signal ended the process
  int signal = 0;     // the signal that ended it, 0 when it exited
  std::string out;
  std::string err;
  bool timedOut = false;
  bool outputLimitHit = false;
  std::chrono::milliseconds wallTime{0};

  [[nodiscard]] bool ok() const { return exitCode == 0 && !timedOut && !outputLimitHit; }
  // "exit 3", "killed by signal 9", "timed out after 30000 ms": for error messages.
  [[nodiscard]] std::string describe() const;
};

// Runs a command to completion. Implementations: ProcessRunner (real processes) and, in tests of
// the layers above, a runner that replays recorded output.
class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // An Error only when the command could not be started (no such program, no pipes or
  // processes left); a non-zero exit, a signal or a timeout is a CommandResult.
  virtual Expected<CommandResult> run(const CommandRequest& request) = 0;
};

// Real processes via posix_spawnp, each in its own process group so that a timeout also ends
// whatever the command started. Thread-safe; at most `maxConcurrent` children run at once across
// all threads (the others wait for a slot), so a burst of polls cannot swamp slurmctld.
class ProcessRunner final : public CommandRunner {
 public:
  explicit ProcessRunner(int maxConcurrent = 4);
  Expected<CommandResult> run(const CommandRequest& request) override;

  // The most children that ran at once so far (for diagnostics and the tests).
  [[nodiscard]] int peakConcurrency() const;

 private:
  static constexpr std::ptrdiff_t kMaxSlots = 1024;
  std::counting_semaphore<kMaxSlots> slots_;
  mutable std::mutex mutex_;
  int running_ = 0;
  int peak_ = 0;
};

}  // namespace tessera::slurm
