#pragma once
// A one-line progress bar on stderr for long verbs (simulate, report): drawn only when stderr is
// a terminal, so scripts and logs get no carriage-return noise.
#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <string>

#include "cli/cli_context.h"

namespace tessera::cli {

class Progress {
 public:
  Progress(Context& ctx, bool enabled, std::string label)
      : on_(enabled && &ctx.err == &std::cerr && isatty(STDERR_FILENO)), label_(std::move(label)) {}
  void operator()(double f) {
    if (!on_) return;
    const int width = 40, done = static_cast<int>(f * width);
    std::fprintf(stderr, "\r[%s%s] %3d%% %s", std::string(size_t(done), '#').c_str(),
                 std::string(size_t(width - done), ' ').c_str(), static_cast<int>(f * 100),
                 label_.c_str());
    std::fflush(stderr);
  }
  void finish() {
    if (on_) std::fprintf(stderr, "\n");
  }

 private:
  bool on_;
  std::string label_;
};

}  // namespace tessera::cli
