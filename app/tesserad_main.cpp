// tesserad: the headless backend. Links no GUI library (checked by the test suite).
// This build loads and checks its configuration; the gRPC service and SQLite state come with
// the headless-backend issue, and until then the daemon refuses to pretend to serve.
#include <CLI/CLI.hpp>

#include <iostream>

#include "clusterspec/cluster_spec.h"
#include "clusterspec/cluster_summary.h"

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
  app.add_option("--catalog", catalogPath, "Extra GPU catalog (YAML)")->check(CLI::ExistingFile);
  app.add_flag("--check", check, "Load and validate the configuration, print a summary, and exit");
  CLI11_PARSE(app, argc, argv);

  tessera::GpuCatalog catalog = tessera::GpuCatalog::builtin();
  if (!catalogPath.empty()) {
    auto extra = tessera::GpuCatalog::fromFile(catalogPath);
    if (!extra) {
      std::cerr << "tesserad: GPU catalog " << extra.error().str() << "\n";
      return 2;
    }
    if (auto merged = catalog.merge(*extra); !merged) {
      std::cerr << "tesserad: GPU catalog " << catalogPath << ": " << merged.error().message
                << "\n";
      return 2;
    }
  }
  tessera::ClusterSpecOptions options;
  options.catalog = &catalog;
  auto cluster = clusterPath.empty() ? tessera::loadClusterSpec(tessera::demoClusterYaml(),
                                                                "demo-cluster.yaml", options)
                                     : tessera::loadClusterSpecFile(clusterPath, &catalog);
  if (!cluster) {
    std::cerr << "tesserad: " << cluster.error().str() << "\n";
    return 2;
  }
  std::cout << tessera::formatSummary(tessera::summarize(**cluster));
  if (check) {
    std::cout << "tesserad: configuration OK\n";
    return 0;
  }
  std::cerr << "tesserad: serving is not available in this build (no gRPC API yet); use --check\n";
  return 3;
}
