#pragma once
// What the files of `tessera ctl` share and its tests need not see: text and table output
// (cli_ctl_output.cpp), one call's connection with its RPC helpers and exit codes (cli_ctl.cpp),
// and the registration of the calls, one function per group of calls (cli_ctl_*.cpp).
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cli/cli.h"
#include "cli/cli_context.h"
#include "cli/cli_ctl.h"
#include "core/strings.h"

namespace google::protobuf {
class Message;
}  // namespace google::protobuf

namespace tessera::cli::ctl {

using Stub = v1::Scheduler::Stub;

// ============================================================================ output

// Rows of cells printed with every column as wide as its widest cell; the first row is the
// header when there is one. The last column is not padded, so long reasons do not widen lines.
class Table {
 public:
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(std::ostream& out) const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

std::string orDash(const std::string& s);
std::string fixed(double v, int digits);  // `digits` after the point
std::string number(double v);             // at most 6 significant digits

// The API's enums as words: "pending", "training", "nvlink-domain".
std::string stateWord(v1::JobState s);
std::string classWord(v1::WorkloadClass c);
std::string topologyWord(v1::TopologyLevel l);

// An engine time for people: a date for live mode's unix clock, "t=2h" for simulated-live's.
std::string clockText(Seconds t);
// "now", "in 5m", "2h ago".
std::string relativeText(Seconds t, Seconds now);

template <typename Repeated>
std::string joinAll(const Repeated& values, std::string_view sep = ", ") {
  std::vector<std::string> parts;
  for (const auto& v : values) {
    if constexpr (std::is_arithmetic_v<std::decay_t<decltype(v)>>)
      parts.push_back(std::to_string(v));
    else
      parts.push_back(v);
  }
  return join(parts, sep);
}

// ============================================================================ calling the server

// One call's connection and what went wrong with it.
struct Call {
  Context& ctx;
  const GlobalFlags& flags;
  std::unique_ptr<rpc::RemoteSession> remote;
  std::string address;
  int failed = 0;  // the exit code of the failure reported last

  [[nodiscard]] bool json() const { return flags.output == "json"; }
  [[nodiscard]] std::ostream& out() const { return ctx.out; }
};

// Each prints 'tessera ctl: ...' on stderr and returns the exit code: kExitUsage for a problem
// found before the server is contacted; for a failed call kExitUnreachable when retrying may
// help, else kExitRefused (also kept in Call::failed).
int usageError(Context& ctx, const std::string& message);
int reportFailure(Call& c, const std::string& kind, const std::string& message, bool unreachable);
int failStatus(Call& c, const grpc::Status& status);
int failApi(Call& c, const ApiError& e);

template <typename Request, typename Response>
using Method = grpc::Status (Stub::*)(grpc::ClientContext*, const Request&, Response*);

// One unary RPC with the call's token and deadline; a failure is reported (see Call::failed).
template <typename Request, typename Response>
bool unary(Call& c, Method<Request, Response> method, const Request& request, Response& response) {
  grpc::ClientContext context;
  c.remote->prepare(context);
  const grpc::Status status = (c.remote->stub().*method)(&context, request, &response);
  if (status.ok()) return true;
  failStatus(c, status);
  return false;
}

// The API's message as JSON with the .proto field names: what scripts parse. Pretty for one
// document per call, one line per object for streams.
int printJson(Call& c, const google::protobuf::Message& message, bool oneLine = false);
// Text as the server sent it, ending in a newline unless it is empty.
void printText(Call& c, const std::string& text);

// Unary call whose answer is printed as JSON or by `table`.
template <typename Request, typename Response, typename Print>
int callAndPrint(Call& c, Method<Request, Response> method, const Request& request, Print table) {
  Response response;
  if (!unary(c, method, request, response)) return c.failed;
  if (c.json()) return printJson(c, response);
  table(response);
  return kExitOk;
}

std::optional<v1::ClusterSnapshot> fetchSnapshot(Call& c);
// The server's clock: durations on the command line (reserve, --since) count from it.
std::optional<Seconds> serverNow(Call& c);
// The clock only to show times relative to it: a failure is a note on stderr, not an error.
std::optional<Seconds> displayNow(Call& c);

// ============================================================================ registration

using Check = std::function<std::string()>;  // a usage problem found offline; empty = none
using Body = std::function<int(Call&)>;      // the call itself, returning the exit code

// Adds calls to `ctl` that share the global flags and report into the context.
struct Registrar {
  CLI::App& ctl;
  Context& ctx;
  std::shared_ptr<GlobalFlags> flags;

  [[nodiscard]] CLI::App* addCall(const std::string& name, const std::string& description) const;
  // Runs `body` in a session when the call's callback fires, unless `check` (run first, with no
  // server contacted) reports a usage error.
  void onCall(CLI::App* sub, Check check, Body body) const;
  void onCall(CLI::App* sub, Body body) const;
};

// Repeatable list options: one value per flag, or a comma-separated list.
CLI::Option* addList(CLI::App* sub, const std::string& name, std::vector<std::string>& values,
                     const std::string& help);
// The usage problem of a duration flag; empty when it is fine or not given.
std::string durationProblem(const std::string& flag, const std::string& text);

void addJobCalls(const Registrar& r);        // submit, get, list, explain
void addActionCalls(const Registrar& r);     // cancel, hold, ..., reserve, unreserve
void addClusterCalls(const Registrar& r);    // snapshot, watch, metrics, whoami, health, ...
void addTelemetryCalls(const Registrar& r);  // telemetry push
void addNodeCalls(const Registrar& r);       // node list, node admit

}  // namespace tessera::cli::ctl
