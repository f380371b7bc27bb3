#include "cli/cli.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "cli/cli_context.h"
#include "cli/cli_ctl.h"
#include "cli/cli_node.h"
#include "cli/cli_top.h"

namespace tessera::cli {

bool isConsoleValueOption(std::string_view arg) {
  return std::any_of(kConsoleOptions.begin(), kConsoleOptions.end(), [arg](const ConsoleOption& o) {
    return arg.starts_with("--") && arg.substr(2) == o.name;
  });
}

const GpuCatalog* Context::catalog() {
  if (catalog_) return catalog_.get();
  auto loaded = loadCatalog(catalogPath);
  if (!loaded) {
    err << "tessera: " << loaded.error().str() << "\n";
    return nullptr;
  }
  catalog_ = std::make_unique<GpuCatalog>(std::move(*loaded));
  return catalog_.get();
}

const GpuModel* Context::model(const std::string& name, bool needMig) {
  const GpuCatalog* c = catalog();
  if (!c) return nullptr;
  const GpuModel* m = c->find(name);
  if (!m) {
    err << "tessera: unknown GPU model '" << name << "' (known: " << c->knownIds() << ")\n";
    return nullptr;
  }
  if (needMig && !m->migCapable()) {
    err << "tessera: GPU model " << m->id << " is not MIG capable\n";
    return nullptr;
  }
  return m;
}

int Context::fail(const std::string& message, int code) {
  err << "tessera: " << message << "\n";
  return code;
}

int Context::writeOutput(const std::string& output, const std::string& text) {
  if (output.empty() || output == "-") {
    out << text;
    return kExitOk;
  }
  std::ofstream file(output);
  if (!(file << text) || !file.flush()) return fail("cannot write '" + output + "'", kExitUsage);
  out << "wrote " << output << "\n";
  return kExitOk;
}

namespace {

// `tessera --help` is the only help most users read, so it describes the console too.
std::string description() {
  std::ostringstream d;
  d << "Tessera: GPU cluster operations console.\n"
       "Without a verb, opens the desktop console (default: the built-in demo cluster);\n"
       "without a display it prints the cluster's summary instead. Console options:\n";
  for (const auto& o : kConsoleOptions) {
    const std::string flag = "--" + std::string(o.name) + " FILE";
    d << "  " << std::left << std::setw(20) << flag << o.help << "\n";
  }
  return d.str();
}

// The first argument that is neither an option nor a console option's value: the verb.
std::optional<std::string> firstPositional(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (isConsoleValueOption(a)) {
      ++i;
      continue;
    }
    if (!a.starts_with('-')) return std::string(a);
  }
  return std::nullopt;
}

}  // namespace

int run(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{description(), "tessera"};
  app.set_version_flag("--version", "tessera 0.1.0");
  app.require_subcommand(1);
  app.fallthrough();
  Context ctx{out, err};
  app.add_option("--catalog", ctx.catalogPath,
                 "Extra GPU catalog (YAML) merged over the built-in one")
      ->check(CLI::ExistingFile);
  addGpuVerbs(app, ctx);
  addClusterVerbs(app, ctx);
  addMigVerbs(app, ctx);
  addScheduleVerbs(app, ctx);
  addSimulateVerbs(app, ctx);
  addReportVerb(app, ctx);
  addCtlVerbs(app, ctx);
  addTopVerb(app, ctx);
  addNodeVerbs(app, ctx);
  addAgentVerb(app, ctx);
  auto isVerb = [&app](const std::string& name) {
    return !app.get_subcommands([&name](CLI::App* sub) { return sub->check_name(name); }).empty();
  };
  if (auto verb = firstPositional(argc, argv); verb && !isVerb(*verb)) {
    err << "tessera: unknown verb '" << *verb
        << "' (verbs: cluster, gpus, mig, schedule, scenario, policy, simulate, report, ctl, node, "
           "agent; "
           "without a "
           "verb "
           "the console "
           "opens)\n";
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e, out, err);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e, out, err);
  } catch (const CLI::ParseError& e) {
    err << "tessera: " << e.what()
        << "\nRun 'tessera --help' (or 'tessera VERB --help') for usage.\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    err << "tessera: " << e.what() << "\n";
    return kExitUsage;
  }
  return ctx.exitCode;
}

int loadErrorCode(const std::string& path) {
  return !path.empty() && !std::filesystem::is_regular_file(path) ? kExitUsage : kExitInvalid;
}

bool isVerbInvocation(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (isConsoleValueOption(a)) {
      ++i;
      continue;
    }
    if (a == "--help" || a == "-h" || a == "--version") return true;
    if (!a.starts_with('-')) return true;
  }
  return false;
}

}  // namespace tessera::cli
