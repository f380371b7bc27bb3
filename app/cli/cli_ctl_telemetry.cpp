// tessera ctl's telemetry calls: `telemetry push` sends a node's dcgm-exporter scrape
// (Prometheus text, from a file or stdin) to a live-mode tesserad, the way a cron job or systemd
// timer on each GPU node feeds the scheduler its GPUs' utilization and Xid errors.
#include <unistd.h>

#include <iostream>
#include <iterator>
#include <string>

#include "cli/cli_ctl_internal.h"
#include "topology/yaml_reader.h"

namespace tessera::cli::ctl {

namespace {

struct PushArgs {
  std::string file = "-";  // FILE, or "-" for stdin
  std::string node, source;
  std::string exposition;  // what was read, before any connection
};

// The scrape as text: the file, or stdin for "-". A failure is the usage problem to report.
std::string readExposition(PushArgs& a) {
  const bool fromStdin = a.file == "-";
  if (fromStdin) {
    // Typing a scrape by hand is never meant: say how to give one instead of waiting forever.
    if (isatty(STDIN_FILENO))
      return "telemetry push reads the scrape from stdin, which is a terminal: give FILE, or pipe "
             "it in (curl -s localhost:9400/metrics | tessera ctl telemetry push)";
    a.exposition.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    if (std::cin.bad()) return "error while reading the scrape from stdin";
    if (a.exposition.size() > kMaxTextFileBytes)
      return "the scrape on stdin is over " + std::to_string(kMaxTextFileBytes / (1024 * 1024)) +
             " MiB";
  } else {
    auto text = readTextFile(a.file);
    if (!text) return text.error().str();
    a.exposition = std::move(*text);
  }
  const std::string name = fromStdin ? std::string("stdin") : "'" + a.file + "'";
  // An exporter that did not answer (curl -s prints nothing) must fail the job that pushes.
  if (trim(a.exposition).empty()) return "no scrape to push: " + name + " is empty";
  if (a.source.empty()) a.source = fromStdin ? "stdin" : a.file;
  return {};
}

int pushTelemetry(Call& c, const PushArgs& a) {
  v1::PushTelemetryRequest request;
  request.set_exposition(a.exposition);
  request.set_source(a.source);
  request.set_node(a.node);
  return callAndPrint(c, &Stub::PushTelemetry, request, [&c](const v1::PushTelemetryResponse& r) {
    c.out() << r.gpus() << (r.gpus() == 1 ? " GPU" : " GPUs") << " updated\n";
    for (const auto& warning : r.warnings()) c.ctx.err << "warning: " << warning << "\n";
  });
}

void addPushCall(const Registrar& r, CLI::App* telemetry) {
  auto a = std::make_shared<PushArgs>();
  auto* sub = telemetry->add_subcommand(
      "push",
      "Send a dcgm-exporter scrape (Prometheus text) to a live-mode server: the GPUs' "
      "utilization, SM and tensor activity, memory, temperature and last Xid (operator)");
  sub->add_option("FILE", a->file, "The scrape, as curl NODE:9400/metrics prints it; - = stdin")
      ->capture_default_str();
  sub->add_option("--node", a->node,
                  "The scheduler's name of the node, when the scrape's Hostname label differs "
                  "or is missing (default: each row's Hostname)")
      ->type_name("NAME");
  sub->add_option("--source", a->source,
                  "Names the scrape in the server's messages (default: FILE, or stdin)")
      ->type_name("TEXT");
  // The scrape is read before any connection: an unreadable file never reaches the server.
  r.onCall(
      sub, [a] { return readExposition(*a); }, [a](Call& c) { return pushTelemetry(c, *a); });
}

}  // namespace

void addTelemetryCalls(const Registrar& r) {
  auto* telemetry = r.addCall("telemetry", "GPU telemetry from node agents: push");
  telemetry->require_subcommand(1);
  addPushCall(r, telemetry);
}

}  // namespace tessera::cli::ctl
