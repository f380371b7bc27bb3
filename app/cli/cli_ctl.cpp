// tessera ctl: every call of tesserad's gRPC API from the command line (docs/ctl.md). This file
// registers the `ctl` verb and its global options, resolves the connection settings (flag >
// environment > config file), opens a call's session and maps failures to exit codes. The calls
// themselves live in cli_ctl_jobs.cpp, cli_ctl_actions.cpp, cli_ctl_cluster.cpp and
// cli_ctl_telemetry.cpp.
#include "cli/cli_ctl.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <utility>

#include "cli/cli_ctl_internal.h"
#include "topology/yaml_reader.h"
#include "workload/workload_spec.h"

namespace tessera::cli {
namespace ctl {

// ============================================================================ connection settings

namespace {

const std::set<std::string> kConfigKeys{"server", "token", "token_file", "ca", "server_name"};

std::string& settingOf(Settings& s, const std::string& key) {
  if (key == "server") return s.server;
  if (key == "token") return s.token;
  if (key == "token_file") return s.tokenFile;
  if (key == "ca") return s.ca;
  return s.serverName;
}

// "~/x" as a shell would expand it: config files are not seen by one.
std::string expandHome(const std::string& path) {
  const char* home = std::getenv("HOME");
  if (!path.starts_with("~/") || !home || !*home) return path;
  return std::string(home) + path.substr(1);
}

struct Source {
  std::string name;         // for messages: "the flags", "config file X"
  std::string bothMessage;  // what to say when it gives a token and a token file
  Settings settings;
};

std::string pick(const std::vector<Source>& sources, std::string Settings::*field) {
  for (const auto& s : sources)
    if (!(s.settings.*field).empty()) return s.settings.*field;
  return {};
}

Expected<std::string> readToken(const std::string& path, const std::string& source) {
  auto text = readTextFile(path);
  if (!text) return Error{"token file from " + source + ": " + text.error().str(), {}};
  std::string token(trim(*text));
  if (token.empty()) return Error{"token file '" + path + "' (from " + source + ") is empty", {}};
  return token;
}

// The token and the token file are one setting: the first source naming either decides.
Expected<std::string> pickToken(const std::vector<Source>& sources) {
  for (const auto& s : sources) {
    const Settings& v = s.settings;
    if (!v.token.empty() && !v.tokenFile.empty()) return Error{s.bothMessage, {}};
    if (!v.token.empty()) return v.token;
    if (!v.tokenFile.empty()) return readToken(v.tokenFile, s.name);
  }
  return std::string();
}

// Flags first, then the environment, then the config file when there is one.
Expected<std::vector<Source>> settingSources(const GlobalFlags& flags, const EnvLookup& env) {
  Settings fromEnv;
  fromEnv.server = env("TESSERA_SERVER").value_or("");
  fromEnv.token = env("TESSERA_TOKEN").value_or("");
  fromEnv.ca = env("TESSERA_CA").value_or("");
  std::vector<Source> sources{
      {"the flags", "give --token or --token-file, not both", flags.connection},
      {"the environment", "", fromEnv}};
  if (auto path = configPath(flags.config, env)) {
    TESSERA_TRY(fromFile, loadConfigFile(*path));
    sources.push_back(
        {"config file " + *path, *path + ": give token or token_file, not both", fromFile});
  }
  return sources;
}

}  // namespace

Expected<Settings> parseConfig(std::string_view text, const std::string& fileName) {
  TESSERA_TRY(doc, parseYaml(text, fileName));
  Settings s;
  if (!doc.IsDefined() || doc.IsNull()) return s;  // an empty file sets nothing
  const YamlField root(doc, "", &fileName);
  TESSERA_CHECK(root.onlyKeys(kConfigKeys));
  for (const auto& [key, field] : root.entries()) {
    TESSERA_TRY(value, field.asString());
    settingOf(s, key) = value;
  }
  return s;
}

Expected<Settings> loadConfigFile(const std::string& path) {
  auto text = readTextFile(path);
  if (!text) return Error{"config file: " + text.error().str(), {}};
  TESSERA_TRY(s, parseConfig(*text, path));
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  for (std::string* file : {&s.tokenFile, &s.ca}) {
    if (file->empty()) continue;
    *file = expandHome(*file);
    if (std::filesystem::path(*file).is_relative()) *file = (dir / *file).string();
  }
  return s;
}

EnvLookup processEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* value = std::getenv(name.c_str());
    if (!value || !*value) return std::nullopt;
    return std::string(value);
  };
}

std::optional<std::string> configPath(const std::string& flag, const EnvLookup& env) {
  if (!flag.empty()) return flag;
  if (auto path = env("TESSERA_CTL_CONFIG")) return path;
  if (auto home = env("HOME")) {
    std::string path = *home + "/.config/tessera/ctl.yaml";
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec)) return path;
  }
  return std::nullopt;
}

Expected<rpc::ClientOptions> resolveOptions(const GlobalFlags& flags, const EnvLookup& env) {
  if (!(flags.timeout > 0) || !std::isfinite(flags.timeout))
    return Error{"--timeout must be a positive number of seconds", {}};
  TESSERA_TRY(sources, settingSources(flags, env));
  rpc::ClientOptions o;
  if (auto server = pick(sources, &Settings::server); !server.empty()) o.address = server;
  TESSERA_TRY(token, pickToken(sources));
  o.token = token;
  o.caFile = pick(sources, &Settings::ca);
  o.serverName = pick(sources, &Settings::serverName);
  o.timeoutSeconds = flags.timeout;
  return o;
}

// ============================================================================ exit codes

namespace {

const char* statusWord(grpc::StatusCode code) {
  using grpc::StatusCode;
  static const std::pair<StatusCode, const char*> kWords[] = {
      {StatusCode::OK, "ok"},
      {StatusCode::CANCELLED, "cancelled"},
      {StatusCode::INVALID_ARGUMENT, "invalid argument"},
      {StatusCode::DEADLINE_EXCEEDED, "deadline exceeded"},
      {StatusCode::NOT_FOUND, "not found"},
      {StatusCode::ALREADY_EXISTS, "already exists"},
      {StatusCode::PERMISSION_DENIED, "permission denied"},
      {StatusCode::UNAUTHENTICATED, "unauthenticated"},
      {StatusCode::RESOURCE_EXHAUSTED, "resource exhausted"},
      {StatusCode::FAILED_PRECONDITION, "failed precondition"},
      {StatusCode::ABORTED, "aborted"},
      {StatusCode::OUT_OF_RANGE, "out of range"},
      {StatusCode::UNIMPLEMENTED, "unimplemented"},
      {StatusCode::INTERNAL, "internal"},
      {StatusCode::UNAVAILABLE, "unavailable"},
      {StatusCode::DATA_LOSS, "data loss"}};
  for (const auto& [c, word] : kWords)
    if (c == code) return word;
  return "unknown";
}

}  // namespace

int usageError(Context& ctx, const std::string& message) {
  ctx.err << "tessera ctl: " << message << "\n";
  return kExitUsage;
}

// UNAVAILABLE and DEADLINE_EXCEEDED get exit 3 because retrying may help (server down, network,
// a busy database); every other status is the server's considered refusal (exit 4).
int reportFailure(Call& c, const std::string& kind, const std::string& message, bool unreachable) {
  c.ctx.err << "tessera ctl: " << kind << ": " << (unreachable ? c.address + ": " : "") << message
            << "\n";
  return c.failed = unreachable ? kExitUnreachable : kExitRefused;
}

int failStatus(Call& c, const grpc::Status& status) {
  const auto code = status.error_code();
  std::string message = status.error_message();
  if (code == grpc::StatusCode::DEADLINE_EXCEEDED)
    message += " (no answer within " + number(c.flags.timeout) + " s; see --timeout)";
  return reportFailure(
      c, statusWord(code), message,
      code == grpc::StatusCode::UNAVAILABLE || code == grpc::StatusCode::DEADLINE_EXCEEDED);
}

int failApi(Call& c, const ApiError& e) {
  return reportFailure(c, errorKindName(e.kind), e.message,
                       e.kind == ErrorKind::Unavailable || e.kind == ErrorKind::DeadlineExceeded);
}

// ============================================================================ the server's clock

std::optional<v1::ClusterSnapshot> fetchSnapshot(Call& c) {
  v1::ClusterSnapshot snapshot;
  if (!unary(c, &Stub::GetSnapshot, v1::GetSnapshotRequest{}, snapshot)) return std::nullopt;
  return snapshot;
}

std::optional<Seconds> serverNow(Call& c) {
  auto snapshot = fetchSnapshot(c);
  if (!snapshot) return std::nullopt;
  return snapshot->now();
}

// The call itself already succeeded, so no "tessera ctl: KIND" line and no exit code here.
std::optional<Seconds> displayNow(Call& c) {
  grpc::ClientContext context;
  c.remote->prepare(context);
  v1::ClusterSnapshot snapshot;
  const grpc::Status status = c.remote->stub().GetSnapshot(&context, {}, &snapshot);
  if (status.ok()) return snapshot.now();
  c.ctx.err << "(no server clock: " << status.error_message() << "; times are absolute)\n";
  return std::nullopt;
}

// ============================================================================ registration

void addConnectionOptions(CLI::App& ctl, GlobalFlags& g) {
  ctl.add_option("--server", g.connection.server,
                 "tesserad address, HOST:PORT or unix:/path (default 127.0.0.1:50551)")
      ->type_name("ADDRESS");
  ctl.add_option("--token", g.connection.token, "Bearer token (see tesserad's token file)")
      ->type_name("TOKEN");
  ctl.add_option("--token-file", g.connection.tokenFile, "Read the bearer token from FILE")
      ->type_name("FILE");
  ctl.add_option("--ca", g.connection.ca, "CA certificate (PEM) to verify the server; enables TLS")
      ->type_name("FILE");
  ctl.add_option("--server-name", g.connection.serverName,
                 "TLS name to expect in the server's certificate (default: the host)")
      ->type_name("NAME");
  ctl.add_option("--config", g.config,
                 "Config file (default: $TESSERA_CTL_CONFIG, else ~/.config/tessera/ctl.yaml)")
      ->type_name("FILE");
  ctl.add_option("--timeout", g.timeout, "Seconds to wait for each answer (not for watch)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

namespace {

const char* const kCtlFooter =
    "Connection settings, first source wins: flag > environment (TESSERA_SERVER, TESSERA_TOKEN,\n"
    "TESSERA_CA) > config file (--config FILE, else $TESSERA_CTL_CONFIG, else\n"
    "~/.config/tessera/ctl.yaml if it exists; YAML keys server, token, token_file, ca,\n"
    "server_name). The options may go before or after the call's name.\n"
    "Durations: 90 (seconds), 90s, 15m, 2h, 1h30m, 1d.\n"
    "Exit codes: 0 ok; 2 usage error, bad flag, unreadable or invalid local file;\n"
    "  3 server unreachable or no answer in time (UNAVAILABLE, DEADLINE_EXCEEDED);\n"
    "  4 the server refused the call (INVALID_ARGUMENT, NOT_FOUND, FAILED_PRECONDITION,\n"
    "    PERMISSION_DENIED, UNAUTHENTICATED, RESOURCE_EXHAUSTED, UNIMPLEMENTED, ...).\n"
    "Errors print 'tessera ctl: KIND: MESSAGE' on stderr. Details: docs/ctl.md.";

const char* const kCallFooter =
    "Connection options (--server, --token, --ca, -o json, --timeout, ...) and exit codes\n"
    "(0 ok, 2 usage, 3 unreachable, 4 refused): see 'tessera ctl --help'.";

std::string noCheck() {
  return {};
}

// Resolves the settings, opens the channel (no traffic yet) and runs `body`.
int withSession(Context& ctx, const GlobalFlags& flags, const Body& body) {
  auto options = resolveOptions(flags, processEnvironment());
  if (!options) return usageError(ctx, options.error().str());
  auto remote = rpc::RemoteSession::connect(*options);
  if (!remote) return usageError(ctx, remote.error().str());
  Call c{ctx, flags, std::move(*remote), options->address};
  return body(c);
}

void addGlobalOptions(CLI::App& ctl, GlobalFlags& g) {
  addConnectionOptions(ctl, g);
  ctl.add_option("-o,--output", g.output, "Output: table, or the API's messages as JSON")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
}

}  // namespace

CLI::App* Registrar::addCall(const std::string& name, const std::string& description) const {
  auto* sub = ctl.add_subcommand(name, description);
  sub->footer(kCallFooter);
  return sub;
}

void Registrar::onCall(CLI::App* sub, Check check, Body body) const {
  sub->callback([&ctx = ctx, g = flags, check = std::move(check), body = std::move(body)] {
    if (auto problem = check(); !problem.empty()) {
      ctx.exitCode = usageError(ctx, problem);
      return;
    }
    ctx.exitCode = withSession(ctx, *g, body);
  });
}

void Registrar::onCall(CLI::App* sub, Body body) const {
  onCall(sub, noCheck, std::move(body));
}

CLI::Option* addList(CLI::App* sub, const std::string& name, std::vector<std::string>& values,
                     const std::string& help) {
  return sub->add_option(name, values, help)->allow_extra_args(false)->delimiter(',');
}

std::string durationProblem(const std::string& flag, const std::string& text) {
  if (text.empty() || parseDuration(text)) return {};
  return flag + ": bad duration '" + text + "' (like 90s, 15m, 2h, 1h30m, 1d)";
}

}  // namespace ctl

void addCtlVerbs(CLI::App& app, Context& ctx) {
  auto g = std::make_shared<ctl::GlobalFlags>();
  auto* verb = app.add_subcommand(
      "ctl",
      "Client for a running tesserad (gRPC API): submit and inspect jobs, operator actions with "
      "--dry-run, cluster state, events, metrics, telemetry push, admin calls");
  verb->require_subcommand(1);
  // Connection options are accepted after the call's name too (`ctl list -o json`).
  verb->fallthrough();
  verb->footer(ctl::kCtlFooter);
  ctl::addGlobalOptions(*verb, *g);
  const ctl::Registrar calls{*verb, ctx, g};
  ctl::addJobCalls(calls);
  ctl::addActionCalls(calls);
  ctl::addClusterCalls(calls);
  ctl::addTelemetryCalls(calls);
  ctl::addNodeCalls(calls);
}

}  // namespace tessera::cli
