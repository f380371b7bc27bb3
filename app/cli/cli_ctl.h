#pragma once
// `tessera ctl`: the command-line client of tesserad's gRPC API (docs/ctl.md). The parts that
// need no server (where the connection settings come from, reading jobs from flags and files,
// reservation windows) are declared here so tests can call them directly.
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "rpc/client.h"

namespace CLI {
class App;
}  // namespace CLI

namespace tessera::cli {

struct Context;
void addCtlVerbs(CLI::App& app, Context& ctx);

namespace ctl {

// Beside the codes every verb uses (0 ok, 2 usage): 3 = the server could not be reached or did
// not answer in time (retrying may help), 4 = the server answered and refused the call.
inline constexpr int kExitUnreachable = 3;
inline constexpr int kExitRefused = 4;

// Connection settings from one source (flags, environment or config file); empty = not given.
struct Settings {
  std::string server;
  std::string token;
  std::string tokenFile;
  std::string ca;
  std::string serverName;
};

// A config file: a YAML map with the keys server, token, token_file, ca, server_name. Errors
// name file:line:column. loadConfigFile resolves a relative token_file or ca against the config
// file's directory, so a config can sit next to its token.
Expected<Settings> parseConfig(std::string_view text, const std::string& fileName);
Expected<Settings> loadConfigFile(const std::string& path);

// Environment lookup, injectable for tests; unset and empty variables both read as nullopt.
using EnvLookup = std::function<std::optional<std::string>(const std::string&)>;
EnvLookup processEnvironment();

// The config file to read: `flag` (--config), else $TESSERA_CTL_CONFIG, else
// $HOME/.config/tessera/ctl.yaml when that file exists; nullopt = none.
std::optional<std::string> configPath(const std::string& flag, const EnvLookup& env);

// The options every call shares.
struct GlobalFlags {
  Settings connection;  // --server, --token, --token-file, --ca, --server-name
  std::string config;   // --config
  double timeout = 30;  // --timeout, seconds per call
  std::string output = "table";
};

// --server, --token, --token-file, --ca, --server-name, --config and --timeout on `app` (ctl's
// calls and `tessera top` connect the same way).
void addConnectionOptions(CLI::App& app, GlobalFlags& g);

// Each setting from the first source that has it: flag > environment (TESSERA_SERVER,
// TESSERA_TOKEN, TESSERA_CA) > config file. A token comes with its source: a source that gives
// both token and token_file is an error, and a token file is read (trimmed) here.
Expected<rpc::ClientOptions> resolveOptions(const GlobalFlags& flags, const EnvLookup& env);

// `ctl submit` flags as given (empty = not given); specFromFlags checks and converts them.
struct SubmitFlags {
  std::string name, team, priority, workloadClass, tasks;
  std::string gpus, mig, fraction, mps;  // exactly one (mps: active-thread percentage)
  std::string mpsMemory;                 // with mps: the pinned device memory limit, "8GiB"
  std::string user;
  std::string vramMib, cpus, memoryGib, minGpuMemoryGib;
  std::vector<std::string> models;
  std::string pool, topology;
  bool topologyRequired = false;
  std::string runtime, checkpointInterval;
  bool held = false;
  std::vector<std::string> pinGpus, pinNodes;
  // How it runs on the cluster (executor slurm): a command or a script file, and where.
  std::string command, script, workDir, output, error, account, partition, timeLimit;

  // Whether any job flag was given (they cannot be combined with --file).
  [[nodiscard]] bool any() const;
};
Expected<rpc::v1::JobSpec> specFromFlags(const SubmitFlags& flags);

// A jobs file: a YAML list of maps with the workload file's job keys (name, team, priority,
// preemptible, class, tasks, gpus | mig | fraction | mps: {threads, memory | memory_mib}, user,
// vram_mib, cpus, memory_gib, model, min_gpu_memory_gib, pool, topology: {level, required},
// runtime, checkpoint_interval, held (or hold), pin: {gpus, nodes}, and how it runs on the cluster:
// command | script (the script's text), work_dir, output, error, account, partition, time_limit).
// Errors, unknown keys among them, name file:line:column.
Expected<std::vector<rpc::v1::JobSpec>> specsFromYaml(std::string_view text,
                                                      const std::string& fileName);
Expected<std::vector<rpc::v1::JobSpec>> specsFromFile(const std::string& path);

// `ctl reserve --from F --until U`: durations ("0", "90s", "2h", "1h30m", "1d") after the
// server's current time `now`, as engine seconds; until must come after from.
struct Window {
  Seconds from = 0;
  Seconds until = 0;
};
Expected<Window> reservationWindow(Seconds now, const std::string& from, const std::string& until);

}  // namespace ctl
}  // namespace tessera::cli
