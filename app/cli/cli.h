#pragma once
// The command-line verbs of `tessera` (cluster, mig, gpus). No window is opened for these; they
// print to the given streams and return the process exit code:
// 0 = success, 1 = the input was checked and is invalid, 2 = usage or input error.
#include <iosfwd>

namespace tessera::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = 1;
inline constexpr int kExitUsage = 2;

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// True when argv names a verb (or asks for --help/--version), i.e. the console must not open.
bool isVerbInvocation(int argc, const char* const* argv);

}  // namespace tessera::cli
