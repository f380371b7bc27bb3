#include "slurm/process_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

extern char** environ;  // NOLINT: POSIX declares it nowhere else

namespace tessera::slurm {

namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

Error systemError(const std::string& what, int err) {
  return Error{what + ": " + std::strerror(err), {}};
}

// A file descriptor closed when it goes out of scope.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    reset();
    fd_ = std::exchange(o.fd_, -1);
    return *this;
  }
  ~Fd() { reset(); }
  void reset() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  [[nodiscard]] int get() const { return fd_; }
  [[nodiscard]] bool open() const { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

struct Pipe {
  Fd read;
  Fd write;
};

// O_CLOEXEC: a child spawned by another thread at the same moment must not inherit our ends
// (it would hold the write end open and our read would never see end-of-file).
Expected<Pipe> makePipe() {
  std::array<int, 2> fds{};
  if (::pipe2(fds.data(), O_CLOEXEC) != 0) return systemError("pipe", errno);
  return Pipe{Fd(fds[0]), Fd(fds[1])};
}

// Writing a batch script to a child that already exited raises SIGPIPE, which would end the whole
// program. Block it on this thread while the command runs, and swallow one that became pending.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipeOnly_);
    sigaddset(&pipeOnly_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeOnly_, &previous_);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;
  ~SigpipeBlock() {
    if (sigismember(&previous_, SIGPIPE) == 1) return;  // was blocked before: leave it as it was
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE) == 1) {
      const timespec zero{0, 0};
      sigtimedwait(&pipeOnly_, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }

 private:
  sigset_t pipeOnly_{};
  sigset_t previous_{};
};

// This process's environment with `overrides` set on top.
std::vector<std::string> childEnvironment(const std::map<std::string, std::string>& overrides) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const auto name = entry.substr(0, entry.find('='));
    if (!overrides.contains(std::string(name))) env.emplace_back(entry);
  }
  for (const auto& [name, value] : overrides) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> cStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

struct ChildPipes {
  std::optional<Pipe> in;
  Pipe out;
  Pipe err;
};

// Spawn attributes: a new process group (the timeout kills the whole group), an empty signal
// mask and default dispositions (the child must not inherit our blocked SIGPIPE).
class SpawnSetup {
 public:
  SpawnSetup() {
    posix_spawnattr_init(&attr_);
    posix_spawn_file_actions_init(&actions_);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions_);
    posix_spawnattr_destroy(&attr_);
  }

  void configure(const ChildPipes& pipes) {
    sigset_t none;
    sigemptyset(&none);
    sigset_t defaults;
    sigemptyset(&defaults);
    for (int s : {SIGPIPE, SIGTERM, SIGINT, SIGHUP, SIGQUIT}) sigaddset(&defaults, s);
    posix_spawnattr_setpgroup(&attr_, 0);
    posix_spawnattr_setsigmask(&attr_, &none);
    posix_spawnattr_setsigdefault(&attr_, &defaults);
    posix_spawnattr_setflags(
        &attr_, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    if (pipes.in)
      posix_spawn_file_actions_adddup2(&actions_, pipes.in->read.get(), STDIN_FILENO);
    else
      posix_spawn_file_actions_addopen(&actions_, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions_, pipes.out.write.get(), STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&actions_, pipes.err.write.get(), STDERR_FILENO);
  }

  const posix_spawnattr_t* attr() const { return &attr_; }
  const posix_spawn_file_actions_t* actions() const { return &actions_; }

 private:
  posix_spawnattr_t attr_{};
  posix_spawn_file_actions_t actions_{};
};

Expected<pid_t> spawn(const CommandRequest& request, const ChildPipes& pipes) {
  if (request.argv.empty() || request.argv[0].empty())
    return Error{"no command to run (empty argv)", {}};
  SpawnSetup setup;
  setup.configure(pipes);
  std::vector<std::string> args = request.argv;
  std::vector<std::string> env = childEnvironment(request.environment);
  auto argvC = cStrings(args);
  auto envC = cStrings(env);
  pid_t pid = 0;
  const int rc =
      posix_spawnp(&pid, argvC[0], setup.actions(), setup.attr(), argvC.data(), envC.data());
  if (rc != 0) return systemError("cannot run '" + request.argv[0] + "'", rc);
  return pid;
}

void setNonBlocking(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// Moves the child's output into the result and the batch script into the child, until both
// output pipes close and the child is reaped, or the time runs out.
class Pump {
 public:
  Pump(const CommandRequest& request, pid_t pid, ChildPipes& pipes, CommandResult& result)
      : request_(request), pid_(pid), pipes_(pipes), result_(result) {
    deadline_ = Clock::now() + request.timeout;
    setNonBlocking(pipes_.out.read.get());
    setNonBlocking(pipes_.err.read.get());
    if (pipes_.in) setNonBlocking(pipes_.in->write.get());
  }

  void run() {
    while (!finished()) {
      reapIfExited();
      escalate();
      if (finished()) break;
      pollOnce();
    }
    if (!reaped_) reapBlocking();
  }

 private:
  [[nodiscard]] bool finished() const {
    const bool drained = !pipes_.out.read.open() && !pipes_.err.read.open();
    // A grandchild outside the group may hold a pipe forever: stop once the group was killed.
    return reaped_ && (drained || killed_);
  }

  void reapIfExited() {
    if (reaped_) return;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) record(status);
  }

  void reapBlocking() {
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    record(status);
  }

  void record(int status) {
    reaped_ = true;
    if (WIFEXITED(status)) result_.exitCode = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result_.signal = WTERMSIG(status);
  }

  // Past the deadline: SIGTERM to the group, SIGKILL after the grace period.
  void escalate() {
    const auto now = Clock::now();
    if (!termSent_ && now >= deadline_) {
      result_.timedOut = true;
      signalGroup(SIGTERM);
    }
    if (termSent_ && !killed_ && now >= termAt_ + request_.killGrace) signalGroup(SIGKILL);
  }

  void signalGroup(int sig) {
    ::kill(-pid_, sig);
    if (sig == SIGTERM) {
      termSent_ = true;
      termAt_ = Clock::now();
    } else {
      termSent_ = true;
      killed_ = true;
    }
  }

  int pollTimeoutMs() const {
    auto next = termSent_ ? termAt_ + request_.killGrace : deadline_;
    auto wait = std::chrono::duration_cast<milliseconds>(next - Clock::now()).count() + 1;
    if (!reaped_) wait = std::min<long>(wait, 20);  // waitpid has no fd to poll
    return static_cast<int>(std::clamp<long>(wait, 0, 1000));
  }

  void pollOnce() {
    std::array<pollfd, 3> fds{};
    nfds_t n = 0;
    auto add = [&](const Fd& fd, short events) {
      if (fd.open()) fds[n++] = pollfd{fd.get(), events, 0};
    };
    add(pipes_.out.read, POLLIN);
    add(pipes_.err.read, POLLIN);
    if (pipes_.in) add(pipes_.in->write, POLLOUT);
    if (::poll(fds.data(), n, pollTimeoutMs()) <= 0) return;
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == pipes_.out.read.get()) drain(pipes_.out.read, result_.out);
      if (fds[i].fd == pipes_.err.read.get()) drain(pipes_.err.read, result_.err);
      if (pipes_.in && fds[i].fd == pipes_.in->write.get()) feed();
    }
  }

  void drain(Fd& fd, std::string& into) {
    std::array<char, 65536> buf{};
    const ssize_t got = ::read(fd.get(), buf.data(), buf.size());
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (got <= 0) {
      fd.reset();
      return;
    }
    into.append(buf.data(), static_cast<size_t>(got));
    if (result_.out.size() + result_.err.size() > request_.outputLimit && !killed_) {
      result_.outputLimitHit = true;
      signalGroup(SIGKILL);
    }
  }

  void feed() {
    const std::string& data = *request_.stdinData;
    if (written_ < data.size()) {
      const ssize_t put =
          ::write(pipes_.in->write.get(), data.data() + written_, data.size() - written_);
      if (put < 0 && (errno == EAGAIN || errno == EINTR)) return;
      if (put < 0) {  // EPIPE: the child does not read its input; not our error to report
        pipes_.in->write.reset();
        return;
      }
      written_ += static_cast<size_t>(put);
    }
    if (written_ >= data.size()) pipes_.in->write.reset();  // end-of-file for the child
  }

  const CommandRequest& request_;
  pid_t pid_;
  ChildPipes& pipes_;
  CommandResult& result_;
  Clock::time_point deadline_;
  Clock::time_point termAt_;
  bool termSent_ = false;
  bool killed_ = false;
  bool reaped_ = false;
  size_t written_ = 0;
};

Expected<ChildPipes> makeChildPipes(bool withStdin) {
  ChildPipes pipes;
  if (withStdin) {
    TESSERA_TRY(in, makePipe());
    pipes.in = std::move(in);
  }
  TESSERA_TRY(out, makePipe());
  TESSERA_TRY(err, makePipe());
  pipes.out = std::move(out);
  pipes.err = std::move(err);
  return pipes;
}

Expected<CommandResult> runOnce(const CommandRequest& request) {
  const auto start = Clock::now();
  SigpipeBlock noSigpipe;
  TESSERA_TRY(pipes, makeChildPipes(request.stdinData.has_value()));
  TESSERA_TRY(pid, spawn(request, pipes));
  // The child has its copies now; closing ours lets end-of-file arrive when it exits.
  if (pipes.in) pipes.in->read.reset();
  pipes.out.write.reset();
  pipes.err.write.reset();
  CommandResult result;
  Pump(request, pid, pipes, result).run();
  result.wallTime = std::chrono::duration_cast<milliseconds>(Clock::now() - start);
  return result;
}

}  // namespace

std::string CommandResult::describe() const {
  if (timedOut) return "timed out after " + std::to_string(wallTime.count()) + " ms";
  if (outputLimitHit) return "killed: output over the limit";
  if (signal != 0) return "killed by signal " + std::to_string(signal);
  return "exit " + std::to_string(exitCode);
}

ProcessRunner::ProcessRunner(int maxConcurrent)
    : slots_(std::clamp<std::ptrdiff_t>(maxConcurrent, 1, kMaxSlots)) {}

Expected<CommandResult> ProcessRunner::run(const CommandRequest& request) {
  slots_.acquire();
  {
    std::lock_guard lock(mutex_);
    peak_ = std::max(peak_, ++running_);
  }
  auto result = runOnce(request);
  {
    std::lock_guard lock(mutex_);
    --running_;
  }
  slots_.release();
  return result;
}

int ProcessRunner::peakConcurrency() const {
  std::lock_guard lock(mutex_);
  return peak_;
}

}  // namespace tessera::slurm
