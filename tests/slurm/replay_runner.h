#pragma once
// A CommandRunner that answers each command with the next queued result and remembers what it
// was asked: Slurm without Slurm, for the client's and the driver's unit tests.
#include <deque>
#include <string>
#include <vector>

#include "slurm/process_runner.h"

namespace tessera::slurm {

// Answers each command with the next queued result and remembers what it was asked.
class ReplayRunner final : public CommandRunner {
 public:
  void answer(std::string out, int exitCode = 0, std::string err = {}) {
    CommandResult r;
    r.out = std::move(out);
    r.err = std::move(err);
    r.exitCode = exitCode;
    answers_.push_back(std::move(r));
  }
  Expected<CommandResult> run(const CommandRequest& request) override {
    requests.push_back(request);
    if (answers_.empty()) return Error{"unexpected command " + request.argv.at(0), {}};
    auto r = answers_.front();
    answers_.pop_front();
    return r;
  }
  std::vector<CommandRequest> requests;

 private:
  std::deque<CommandResult> answers_;
};

}  // namespace tessera::slurm
