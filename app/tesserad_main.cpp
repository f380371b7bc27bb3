// tesserad: the headless backend. Links no GUI library (checked by the test suite); everything
// it does lives in backend/daemon (configuration, serving, shutdown) and the libraries below.
#include <CLI/CLI.hpp>

#include <iostream>

#include "daemon/daemon.h"
#include "rpc/auth.h"

namespace {

constexpr const char* kFooter =
    "Exit codes: 0 stopped cleanly (SIGTERM/SIGINT) or configuration OK; 1 configuration read but "
    "invalid; 2 bad option or unreadable file; 3 cannot serve (database refused, address in use, "
    "TLS files).\nConfiguration keys and the API: docs/tesserad.md, docs/api.md.";

// `tesserad token --name alice --role operator`: a new token and the line for the token file.
int printNewToken(const std::string& name, const std::string& role) {
  if (!tessera::parseRole(role)) {
    std::cerr << "tesserad: --role must be viewer, operator, admin or agent\n";
    return tessera::kTesseradUsage;
  }
  auto token = tessera::generateToken();
  if (!token) {
    std::cerr << "tesserad: " << token.error().str() << "\n";
    return tessera::kTesseradCannotServe;
  }
  std::cout << "token (give it to " << name << "; it is not stored anywhere): " << *token << "\n"
            << "add to the token file:\n"
            << "  - {name: " << name << ", role: " << role
            << ", sha256: " << tessera::sha256Hex(*token) << "}\n";
  return tessera::kTesseradOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "tesserad: Tessera's headless scheduler backend. Runs the scheduler engine on a live clock "
      "(mode live) or on the demo cluster with synthetic load (mode simulated-live), keeps its "
      "state in SQLite, and serves the tessera.v1 gRPC API and Prometheus metrics.",
      "tesserad"};
  app.set_version_flag("--version", "tesserad 0.1.0");
  app.footer(kFooter);
  tessera::TesseradConfig c;
  std::string configPath;
  bool check = false;
  app.add_option("--config", configPath, "Configuration file (YAML); flags override it");
  app.add_option("--mode", c.mode, "live | simulated-live (default live)");
  app.add_option("--executor", c.executor,
                 "live mode: what runs the jobs: none (jobs end when cancelled) | slurm "
                 "(docs/slurm.md; the slurm.* keys of the configuration file)");
  app.add_option("--slurm-conf", c.slurm.conf, "executor slurm: SLURM_CONF of the cluster");
  app.add_option("--db", c.database, "SQLite database (default tesserad.db; created when missing)");
  app.add_option("--cluster", c.cluster, "Cluster spec (YAML); default: the built-in demo cluster");
  app.add_option("--workload", c.workload,
                 "Teams, quotas and priority classes (a workload file; its jobs are ignored); "
                 "default: the demo tenants");
  app.add_option("--policy", c.policy, "Scheduler policy (YAML)");
  app.add_option("--catalog", c.catalog, "Extra GPU catalog (YAML)");
  app.add_option("--listen", c.listen,
                 "API address host:port or unix:/path (default 127.0.0.1:50551)");
  app.add_option("--tls-cert", c.tlsCert, "TLS certificate (PEM)");
  app.add_option("--tls-key", c.tlsKey, "TLS private key (PEM)");
  app.add_option("--tokens", c.tokens,
                 "Token file (YAML: name, role, sha256); none = no auth, loopback only");
  app.add_flag("--allow-insecure-remote", c.allowInsecureRemote,
               "Allow listening beyond loopback without TLS and tokens");
  app.add_option("--metrics-listen", c.metricsListen,
                 "Prometheus endpoint host:port (default 127.0.0.1:9464; 'off' disables)");
  app.add_option("--cycle-interval", c.cycleSeconds,
                 "Seconds between scheduling cycles (default 2)");
  app.add_option("--speed", c.speed, "simulated-live: engine seconds per wall second (default 60)");
  app.add_option("--arrivals-per-hour", c.arrivalsPerHour,
                 "simulated-live: synthetic job arrivals per engine hour (default 120)");
  app.add_option("--gpu-faults-per-day", c.gpuFaultsPerDay,
                 "simulated-live: injected GPU faults (Xid errors) per engine day across the "
                 "cluster (default 0)");
  app.add_option("--seed", c.seed, "simulated-live: seed of the synthetic load");
  app.add_option("--rate-limit", c.ratePerSecond,
                 "Requests per second per identity (default 500; bursts of twice that)")
      ->each([&c](const std::string&) { c.rateBurst = 2 * c.ratePerSecond; });
  app.add_option("--log-format", c.logFormat, "text | json (default text)");
  app.add_option("--log-level", c.logLevel, "debug | info | warn | error (default info)");
  app.add_flag("--check", check, "Load and validate the configuration, print a summary, and exit");
  auto* token = app.add_subcommand("token", "Print a new bearer token and its token-file line");
  std::string tokenName, tokenRole = "viewer";
  token->add_option("--name", tokenName, "Identity written to the audit log")->required();
  token->add_option("--role", tokenRole,
                    "viewer | operator | admin | agent (a node's telemetry push only; default "
                    "viewer)");
  try {
    // The file first, then the flags over it: parse twice.
    app.parse(argc, argv);
    if (!configPath.empty()) {
      tessera::TesseradConfig fromFile;
      if (auto st = tessera::loadTesseradConfig(configPath, fromFile); !st) {
        std::cerr << "tesserad: " << st.error().str() << "\n";
        return st.error().message == "cannot open file" ? tessera::kTesseradUsage
                                                        : tessera::kTesseradInvalidConfig;
      }
      c = fromFile;
      app.parse(argc, argv);
    }
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "tesserad: " << e.what() << "\nRun 'tesserad --help' for usage.\n";
    return tessera::kTesseradUsage;
  }
  if (token->parsed()) return printNewToken(tokenName, tokenRole);
  return tessera::runTesserad(c, check, std::cout);
}
