#pragma once
// What every verb shares: the output streams and the GPU catalog (built-in + --catalog FILE).
#include <CLI/CLI.hpp>

#include <memory>
#include <ostream>
#include <string>

#include "topology/gpu_catalog.h"

namespace tessera::cli {

// The most GPUs one node may have in a cluster spec (the reader checks `gpus:` of a node template
// against it); templates we write and mig-parted device indices must stay within it.
inline constexpr int kMaxGpusPerNode = 64;

struct Context {
  Context(std::ostream& o, std::ostream& e) : out(o), err(e) {}
  std::ostream& out;
  std::ostream& err;
  std::string catalogPath;      // --catalog
  std::string format = "text";  // -o text|json where supported
  int exitCode = 0;             // set by the verb that ran

  // Built-in catalog merged with --catalog; reports a load error on `err`.
  const GpuCatalog* catalog();
  // Model by name, or prints "unknown GPU model" with the known ids and returns nullptr.
  const GpuModel* model(const std::string& name, bool needMig);
  int fail(const std::string& message, int code);
  // `text` on stdout when `output` is empty or "-", else into that file ("wrote FILE" on stdout);
  // the exit code (kExitUsage when the file cannot be written).
  int writeOutput(const std::string& output, const std::string& text);

 private:
  std::unique_ptr<GpuCatalog> catalog_;
};

void addGpuVerbs(CLI::App& app, Context& ctx);
void addClusterVerbs(CLI::App& app, Context& ctx);
// `cluster import-slurm`, under the `cluster` subcommand.
void addImportSlurmVerb(CLI::App& cluster, Context& ctx);
void addMigVerbs(CLI::App& app, Context& ctx);
void addScheduleVerbs(CLI::App& app, Context& ctx);
void addSimulateVerbs(CLI::App& app, Context& ctx);
void addReportVerb(CLI::App& app, Context& ctx);

}  // namespace tessera::cli
