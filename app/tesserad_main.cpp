// tesserad: the headless backend. Links no GUI library (checked by the test suite).
// This build loads and checks its configuration; the gRPC service and SQLite state come with
// the headless-backend issue, and until then the daemon refuses to pretend to serve.
#include <CLI/CLI.hpp>

#include <filesystem>
#include <iostream>

#include "clusterspec/cluster_spec.h"
#include "clusterspec/cluster_summary.h"

namespace {

// Exit codes as for tessera: 0 ok, 1 configuration read and invalid, 2 usage or unreadable input,
// 3 asked to serve (not available in this build).
constexpr int kExitInvalid = 1;
constexpr int kExitUsage = 2;
constexpr int kExitCannotServe = 3;

int readableOrUsage(const std::string& path) {
  return !path.empty() && !std::filesystem::is_regular_file(path) ? kExitUsage : kExitInvalid;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "tesserad: Tessera headless scheduler backend.\n"
      "This build checks configuration only (--check); the gRPC API is not part of it yet.",
      "tesserad"};
  app.set_version_flag("--version", "tesserad 0.1.0");
  std::string clusterPath;
  std::string catalogPath;
  bool check = false;
  app.add_option("--cluster", clusterPath,
                 "Cluster spec (YAML); default: the built-in demo cluster");
  app.add_option("--catalog", catalogPath, "Extra GPU catalog (YAML)");
  app.add_flag("--check", check, "Load and validate the configuration, print a summary, and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "tesserad: " << e.what() << "\nRun 'tesserad --help' for usage.\n";
    return kExitUsage;
  }
  auto catalog = tessera::loadCatalog(catalogPath);
  if (!catalog) {
    std::cerr << "tesserad: " << catalog.error().str() << "\n";
    return readableOrUsage(catalogPath);
  }
  auto cluster = tessera::loadClusterOrDemo(clusterPath, *catalog);
  if (!cluster) {
    std::cerr << "tesserad: " << cluster.error().str() << "\n";
    return readableOrUsage(clusterPath);
  }
  std::cout << tessera::formatSummary(tessera::summarize(**cluster));
  if (check) {
    std::cout << "tesserad: configuration OK\n";
    return 0;
  }
  std::cerr << "tesserad: serving is not available in this build (no gRPC API yet); use --check\n";
  return kExitCannotServe;
}
