#pragma once
// The command-line verbs of `tessera` (cluster, mig, gpus, schedule, scenario, policy). No window
// is opened for these; they print to the given streams and return the process exit code: 0 =
// success, 1 = the input was checked and is invalid, 2 = usage or input error.
#include <array>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>

#include "clusterspec/cluster_spec.h"
#include "core/expected.h"
#include "topology/gpu_catalog.h"

namespace tessera::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitInvalid = 1;
inline constexpr int kExitUsage = 2;

// Exit code for an input that failed to load: 2 when the named file cannot be read (usage or input
// error), 1 when it was read and is invalid; an empty path means the built-in demo (1).
int loadErrorCode(const std::string& path);

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err);

// True when argv names a verb (or asks for --help/--version), i.e. the console must not open.
bool isVerbInvocation(int argc, const char* const* argv);

// The options of the desktop console (app/main.cpp), all of them taking a FILE value. One list,
// because three places must agree on it: the console's parser, the verb detection (a value such
// as `--cluster x.yaml` is not a verb) and the `tessera --help` text.
struct ConsoleOption {
  std::string_view name;  // without the leading "--"
  std::string_view help;
};
inline constexpr std::array<ConsoleOption, 3> kConsoleOptions{{
    {"cluster", "Cluster spec to open (default: the built-in demo cluster)"},
    {"catalog", "Extra GPU catalog (YAML) merged over the built-in one"},
    {"screenshot", "Render the window to a PNG file and exit"},
}};

// True for "--cluster", "--catalog", "--screenshot": the next argument is their value.
bool isConsoleValueOption(std::string_view arg);

}  // namespace tessera::cli
