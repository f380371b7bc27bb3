// `tessera top`: the terminal console (tui/, docs/top.md). This file only reads the options:
// ctl's connection settings (flags > environment > config file) or --demo, and how the terminal
// is to be used.
#include "cli/cli_top.h"

#include "cli/cli.h"
#include "cli/cli_ctl.h"
#include "clusterspec/cluster_spec.h"
#include "tui/top.h"
#include "workload/workload_spec.h"

namespace tessera::cli {

namespace {

struct TopFlags {
  ctl::GlobalFlags connection;
  bool demo = false;
  std::string cluster;
  bool readonly = false;
  std::string color = "auto";
  bool ascii = false;
  std::string view = "jobs";
};

const char* const kTopFooter =
    "Without --demo it connects like 'tessera ctl': flag > environment (TESSERA_SERVER,\n"
    "TESSERA_TOKEN, TESSERA_CA) > config file (--config, $TESSERA_CTL_CONFIG,\n"
    "~/.config/tessera/ctl.yaml). A viewer token hides the actions, as --readonly does.\n"
    "Keys: ':' view (jobs pending nodes gpus mig events teams), '/' filter (words and\n"
    "key=value), '?' key map, Enter detail, Esc back, q quit. NO_COLOR=1 for monochrome;\n"
    "TERM=xterm-direct for 24-bit colour. Exit codes: 0 ok, 2 usage, 3 cannot connect.\n"
    "Details: docs/top.md.";

int runWith(Context& ctx, const TopFlags& f) {
  tui::TopOptions o;
  o.demo = f.demo;
  o.readonly = f.readonly;
  o.color = tui::colorModeFromName(f.color);
  if (f.ascii) o.unicode = false;
  o.startView = *tui::viewFromCommand(f.view);
  o.catalog = ctx.catalog();
  if (!o.catalog) return kExitUsage;
  Workload workload;
  if (f.demo) {
    auto cluster = loadClusterOrDemo(f.cluster, *o.catalog);
    if (!cluster) return ctx.fail(cluster.error().str(), loadErrorCode(f.cluster));
    o.demoCluster = *cluster;
    if (f.cluster.empty())
      if (auto w = demoWorkload(o.catalog)) workload = std::move(*w);
    o.demoWorkload = &workload;
  } else {
    auto options = ctl::resolveOptions(f.connection, ctl::processEnvironment());
    if (!options) return ctx.fail("tessera top: " + options.error().str(), kExitUsage);
    o.remote = *options;
  }
  return tui::runTop(o, ctx.err);
}

}  // namespace

void addTopVerb(CLI::App& app, Context& ctx) {
  auto f = std::make_shared<TopFlags>();
  auto* top = app.add_subcommand(
      "top", "Terminal console (k9s/nvitop style) for a tesserad, or for the embedded demo");
  top->footer(kTopFooter);
  ctl::addConnectionOptions(*top, f->connection);
  top->add_flag("--demo", f->demo, "Open the embedded demo cluster instead of connecting");
  top->add_option("--cluster", f->cluster, "With --demo: cluster spec (default: the demo cluster)")
      ->type_name("FILE");
  top->add_flag("--readonly", f->readonly, "Hide and refuse the operator actions");
  top->add_option("--color", f->color, "Colours: auto, truecolor, 256, 8 or mono")
      ->check(CLI::IsMember({"auto", "truecolor", "256", "8", "mono"}))
      ->capture_default_str();
  top->add_flag("--ascii", f->ascii, "Draw with ASCII only (automatic for LANG=C, TERM=vt100)");
  top->add_option("--view", f->view, "First view: jobs, pending, nodes, gpus, mig, events, teams")
      ->check(CLI::IsMember({"jobs", "pending", "nodes", "gpus", "mig", "events", "teams"}))
      ->capture_default_str();
  top->callback([&ctx, f] { ctx.exitCode = runWith(ctx, *f); });
}

}  // namespace tessera::cli
