// tessera mig validate | layouts | fits | plan | export | fragmentation
#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <optional>
#include <variant>

#include "cli/cli.h"
#include "cli/cli_context.h"
#include "clusterspec/cluster_spec.h"
#include "core/strings.h"
#include "mig/mig_capacity.h"
#include "mig/mig_parted.h"
#include "mig/mig_plan.h"
#include "mig/mig_validate.h"
#include "topology/mig_layout.h"

namespace tessera::cli {

namespace {

struct MigArgs {
  std::string gpu;
  std::string layout;
  std::string current;
  std::string target;
  std::string demand;
  std::vector<std::string> configs;
  std::string clusterSpec;
  std::string node;
  std::string output;
  bool maximal = false;
  bool countOnly = false;
};

std::string slicesText(const MigGeometry& g, uint16_t mask) {
  std::string s;
  for (int i = 0; i < g.memorySlices; ++i) s += ((mask >> i) & 1u) ? '#' : '.';
  return s;
}

int computeSlicesOf(const MigGeometry& g, const MigLayout& l) {
  int n = 0;
  for (const auto& i : l) n += g.profiles[static_cast<size_t>(i.profile)].computeSlices;
  return n;
}

int validateLayout(Context& ctx, const MigArgs& a) {
  const GpuModel* m = ctx.model(a.gpu, true);
  if (!m) return kExitUsage;
  auto layout = parseMigLayout(*m, a.layout);
  if (!layout) return ctx.fail(layout.error().str(), kExitUsage);
  const MigGeometry& g = *m->mig;
  MigLayout placed = *layout;
  if (!layout->allPlaced()) {
    // Like `nvidia-smi mig -cgi` without placements: valid if some placement exists.
    auto plan = planMigRepartition(*m, MigLayout{}, *layout);
    if (!plan) {
      ctx.out << "invalid: " << plan.error().message << "\n";
      return kExitInvalid;
    }
    placed = plan->target;
    ctx.out << "placeable as: " << formatMigLayout(*m, placed) << "\n";
  }
  const MigVerdict v = validateMigLayout(g, placed);
  if (!v.ok()) {
    ctx.out << "invalid: " << explainMigVerdict(*m, placed, v) << "\n";
    return kExitInvalid;
  }
  const uint16_t used = placed.occupiedMask(g);
  ctx.out << "valid on " << m->id << ": " << placed.size() << " GPU instance(s), memory slices ["
          << slicesText(g, used) << "] " << std::popcount(static_cast<unsigned>(used)) << "/"
          << g.memorySlices << ", compute slices " << computeSlicesOf(g, placed) << "/"
          << g.computeSlices << "\n";
  return kExitOk;
}

int listLayouts(Context& ctx, const MigArgs& a) {
  const GpuModel* m = ctx.model(a.gpu, true);
  if (!m) return kExitUsage;
  // Real GPUs enumerate in microseconds; the bound only stops a user catalog with huge geometry.
  constexpr uint64_t kMaxSteps = 50'000'000;
  bool complete = true;
  const size_t n =
      forEachMigLayoutBounded(*m->mig, a.maximal, kMaxSteps, complete, [&](const MigLayout& l) {
        if (!a.countOnly) ctx.out << formatMigLayout(*m, l) << "\n";
      });
  if (!complete) {
    ctx.err << "tessera: stopped after " << kMaxSteps << " search steps and " << n
            << " layouts: " << m->id << " has too many layouts to enumerate\n";
    return kExitInvalid;
  }
  ctx.out << n << (a.maximal ? " maximal" : " valid") << " layouts of " << m->id
          << (a.maximal ? "" : " (including the empty one)") << "\n";
  return kExitOk;
}

// A layout whose instances all have a start; a syntax error or a missing start is a usage error.
Expected<MigLayout> parsePlacedLayout(const GpuModel& m, const std::string& text) {
  auto layout = parseMigLayout(m, text);
  if (!layout) return layout.error();
  if (!layout->allPlaced()) return Error{"every instance needs a start here (PROFILE@START)", {}};
  return layout;
}

// Why a placed layout fails the checks, or nullopt when it passes them.
std::optional<std::string> whyInvalid(const GpuModel& m, const MigLayout& layout) {
  const MigVerdict v = validateMigLayout(*m.mig, layout);
  if (v.ok()) return std::nullopt;
  return "invalid layout: " + explainMigVerdict(m, layout, v);
}

// The placed, valid layout `fits` and `fragmentation` start from. On failure it says why and
// returns the exit code: 2 when the layout cannot be read, 1 when it was read and is invalid.
std::variant<MigLayout, int> checkedLayout(Context& ctx, const GpuModel& m,
                                           const std::string& text) {
  auto layout = parsePlacedLayout(m, text);
  if (!layout) return ctx.fail(layout.error().str(), kExitUsage);
  if (auto why = whyInvalid(m, *layout)) return ctx.fail(*why, kExitInvalid);
  return *layout;
}

int whatFits(Context& ctx, const MigArgs& a) {
  const GpuModel* m = ctx.model(a.gpu, true);
  if (!m) return kExitUsage;
  const auto checked = checkedLayout(ctx, *m, a.layout);
  if (const int* code = std::get_if<int>(&checked)) return *code;
  const auto& layout = std::get<MigLayout>(checked);
  const auto fits = migWhatFits(*m->mig, layout);
  if (fits.empty()) ctx.out << "nothing else fits on " << formatMigLayout(*m, layout) << "\n";
  for (const auto& f : fits)
    ctx.out << std::left << std::setw(14) << m->mig->profiles[static_cast<size_t>(f.profile)].name
            << " at " << formatStarts(*m->mig, f.starts) << "\n";
  return kExitOk;
}

int plan(Context& ctx, const MigArgs& a) {
  const GpuModel* m = ctx.model(a.gpu, true);
  if (!m) return kExitUsage;
  auto current = parseMigLayout(*m, a.current);
  if (!current) return ctx.fail("--current: " + current.error().str(), kExitUsage);
  if (!current->allPlaced())
    return ctx.fail("--current: every instance needs a start (PROFILE@START)", kExitUsage);
  auto target = parseMigLayout(*m, a.target);
  if (!target) return ctx.fail("--target: " + target.error().str(), kExitUsage);
  auto p = planMigRepartition(*m, *current, *target);
  if (!p) {
    ctx.out << "no plan: " << p.error().message << "\n";
    return kExitInvalid;
  }
  ctx.out << formatMigPlan(*m, *p);
  return kExitOk;
}

// A demand weight: the whole text is one finite number > 0 ("1x", "inf", "nan", "" are not).
std::optional<double> parseWeight(std::string_view text) {
  text = trim(text);
  double w = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), w);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  if (!std::isfinite(w) || !(w > 0)) return std::nullopt;
  return w;
}

Expected<MigDemand> parseDemand(const GpuModel& m, const std::string& text) {
  if (text.empty()) return MigDemand::uniform(*m.mig);
  MigDemand d;
  for (auto item : split(text, ',')) {
    const auto eq = item.find('=');
    const std::string name(trim(item.substr(0, eq)));
    const int p = m.mig->profileIndex(name);
    if (p < 0) return Error{"--demand: unknown profile '" + name + "' for " + m.id, {}};
    double w = 1.0;
    if (eq != std::string_view::npos) {
      const auto parsed = parseWeight(item.substr(eq + 1));
      if (!parsed) {
        return Error{"--demand: the weight in '" + std::string(item) +
                         "' must be a finite number > 0 (e.g. 3g.40gb=2)",
                     {}};
      }
      w = *parsed;
    }
    d.weights.emplace_back(p, w);
  }
  return d;
}

int fragmentation(Context& ctx, const MigArgs& a) {
  const GpuModel* m = ctx.model(a.gpu, true);
  if (!m) return kExitUsage;
  const auto checked = checkedLayout(ctx, *m, a.layout);
  if (const int* code = std::get_if<int>(&checked)) return *code;
  const auto& layout = std::get<MigLayout>(checked);
  auto demand = parseDemand(*m, a.demand);
  if (!demand) return ctx.fail(demand.error().str(), kExitUsage);
  const MigUsage usage = MigUsage::of(*m->mig, layout);
  const MigFragmentation f = migFragmentation(*m->mig, layout, *demand);
  ctx.out << "free memory slices: " << f.freeSlices << "/" << m->mig->memorySlices << "\n";
  for (auto [p, w] : demand->weights) {
    const auto& prof = m->mig->profiles[static_cast<size_t>(p)];
    const int more = migMaxAdditional(*m->mig, usage, p);
    ctx.out << "  " << std::left << std::setw(14) << prof.name << " weight " << w << ": " << more
            << " more fit, stranding " << f.freeSlices - more * prof.memorySlices << " slice(s)\n";
  }
  ctx.out << std::fixed << std::setprecision(3)
          << "stranded slices (demand-weighted): " << f.strandedSlices
          << "\nfragmentation score: " << f.score << "\n";
  return kExitOk;
}

// NAME[:DEVICES]=LAYOUT
Expected<MigPartedConfig> parseConfigArg(const GpuModel& m, const std::string& arg) {
  const auto eq = arg.find('=');
  if (eq == std::string::npos || eq == 0)
    return Error{"--config '" + arg + "': expected NAME[:DEVICES]=LAYOUT", {}};
  std::string head = arg.substr(0, eq);
  MigPartedEntry entry;
  entry.model = &m;
  if (auto colon = head.find(':'); colon != std::string::npos) {
    const std::string deviceList = head.substr(colon + 1);
    for (auto d : split(deviceList, ',')) {
      auto v = parseInt(d);
      if (!v || *v < 0 || *v >= kMaxGpusPerNode) {
        return Error{"--config '" + arg + "': bad device index '" + std::string(d) + "' (0.." +
                         std::to_string(kMaxGpusPerNode - 1) + ": a node has at most " +
                         std::to_string(kMaxGpusPerNode) + " GPUs)",
                     {}};
      }
      if (std::find(entry.devices.begin(), entry.devices.end(), *v) != entry.devices.end())
        return Error{"--config '" + arg + "': device " + std::to_string(*v) + " is listed twice",
                     {}};
      entry.devices.push_back(*v);
    }
    head = head.substr(0, colon);
  }
  if (trim(head).empty())
    return Error{"--config '" + arg + "': the config needs a name (NAME[:DEVICES]=LAYOUT)", {}};
  auto layout = parsePlacedLayout(m, arg.substr(eq + 1));
  if (!layout) return Error{"--config '" + arg + "': " + layout.error().message, {}};
  if (auto why = whyInvalid(m, *layout)) return Error{"--config '" + arg + "': " + *why, {}};
  entry.layout = *layout;
  return MigPartedConfig{head, {entry}};
}

// Two entries of one config must not both configure a device (or both say "all").
std::optional<std::string> sharedDevice(const MigPartedConfig& config,
                                        const MigPartedEntry& added) {
  for (const auto& e : config.entries) {
    if (e.devices.empty() || added.devices.empty())
      return "config '" + config.name +
             "' already has an entry, and one of them applies to all devices";
    for (int d : added.devices)
      if (std::find(e.devices.begin(), e.devices.end(), d) != e.devices.end())
        return "device " + std::to_string(d) + " is in two entries of config '" + config.name + "'";
  }
  return std::nullopt;
}

// One entry per distinct layout of the node's GPUs (MIG off for exclusive/time-sliced GPUs).
Expected<MigPartedConfig> configFromNode(const Cluster& cluster, const MigArgs& a) {
  const Node* n = cluster.findNode(a.node);
  if (!n) return Error{"no node named '" + a.node + "' in " + a.clusterSpec, {}};
  MigPartedConfig config{n->name, {}};
  for (int i = 0; i < n->gpuCount(); ++i) {
    const Gpu& g = cluster.gpu(n->firstGpu + static_cast<GpuId>(i));
    const bool mig = g.sharing.mode == SharingMode::Mig;
    auto same =
        std::find_if(config.entries.begin(), config.entries.end(), [&](const MigPartedEntry& e) {
          return e.migEnabled == mig && (!mig || e.layout == g.sharing.mig);
        });
    if (same != config.entries.end()) {
      same->devices.push_back(i);
      continue;
    }
    MigPartedEntry e;
    e.model = n->hw->gpuModel.get();
    e.devices = {i};
    e.migEnabled = mig;
    e.layout = g.sharing.mig;
    config.entries.push_back(e);
  }
  return config;
}

// mig-parted creates one full compute instance per GPU instance from these files; say so instead
// of dropping a split silently.
void warnAboutComputeInstanceSplits(Context& ctx, const std::vector<MigPartedConfig>& configs) {
  for (const auto& c : configs)
    for (const auto& e : c.entries)
      for (const auto& inst : e.layout)
        if (inst.ciCount > 0)
          ctx.err << "tessera: warning: config '" << c.name << "': compute instances of "
                  << formatMigInstance(*e.model, inst)
                  << " are not exported; mig-parted creates one full "
                  << "compute instance per GPU instance\n";
}

int exportConfig(Context& ctx, const MigArgs& a) {
  std::vector<MigPartedConfig> configs;
  if (!a.clusterSpec.empty() || !a.node.empty()) {
    if (a.clusterSpec.empty() || a.node.empty())
      return ctx.fail("--cluster and --node go together", kExitUsage);
    if (!ctx.catalog()) return kExitUsage;
    auto cluster = loadClusterSpecFile(a.clusterSpec, ctx.catalog());
    if (!cluster) return ctx.fail(cluster.error().str(), loadErrorCode(a.clusterSpec));
    auto c = configFromNode(**cluster, a);
    if (!c) return ctx.fail(c.error().str(), kExitUsage);
    configs.push_back(*c);
  }
  if (!a.configs.empty()) {
    if (a.gpu.empty()) return ctx.fail("--config needs --gpu MODEL", kExitUsage);
    const GpuModel* m = ctx.model(a.gpu, true);
    if (!m) return kExitUsage;
    for (const auto& arg : a.configs) {
      auto c = parseConfigArg(*m, arg);
      if (!c) return ctx.fail(c.error().str(), kExitUsage);
      auto same = std::find_if(configs.begin(), configs.end(),
                               [&](const auto& x) { return x.name == c->name; });
      if (same == configs.end()) {
        configs.push_back(*c);
        continue;
      }
      if (auto clash = sharedDevice(*same, c->entries.front()))
        return ctx.fail("--config '" + arg + "': " + *clash, kExitUsage);
      same->entries.push_back(c->entries.front());
    }
  }
  if (configs.empty())
    return ctx.fail(
        "nothing to export: give --gpu MODEL --config NAME=LAYOUT or --cluster FILE --node NAME",
        kExitUsage);
  warnAboutComputeInstanceSplits(ctx, configs);
  return ctx.writeOutput(a.output, toMigPartedYaml(configs));
}

}  // namespace

void addMigVerbs(CLI::App& app, Context& ctx) {
  auto a = std::make_shared<MigArgs>();
  auto* mig = app.add_subcommand(
      "mig", "MIG engine: validate, enumerate, what fits, repartition plans, export");
  mig->require_subcommand(1);
  mig->footer(
      "Layout syntax: PROFILE[@START][(Kc+Kc...)][*], comma separated; '*' = busy; 'Nx' repeats.\n"
      "Example: 3g.40gb@4,2g.20gb@0,1g.10gb@2,1g.10gb@3   (docs/mig-layout-syntax.md)");
  auto gpuOption = [&](CLI::App* sub, bool required) {
    auto* o = sub->add_option("--gpu", a->gpu,
                              "GPU model (catalog id or alias, e.g. H100, A100-80GB, A30)");
    if (required) o->required();
  };

  auto* validate =
      mig->add_subcommand("validate", "Check a layout; says which check fails and why");
  gpuOption(validate, true);
  validate->add_option("LAYOUT", a->layout, "GPU instances, e.g. 3g.40gb@4,2g.20gb@0")->required();
  validate->callback([&ctx, a] { ctx.exitCode = validateLayout(ctx, *a); });

  auto* layouts =
      mig->add_subcommand("layouts", "Enumerate every valid (or every maximal) layout of a model");
  gpuOption(layouts, true);
  layouts->add_flag("--maximal", a->maximal, "Only layouts to which nothing more can be added");
  layouts->add_flag("--count", a->countOnly, "Print only the count");
  layouts->callback([&ctx, a] { ctx.exitCode = listLayouts(ctx, *a); });

  auto* fits =
      mig->add_subcommand("fits", "Profiles that still fit next to a partial layout, and where");
  gpuOption(fits, true);
  fits->add_option("LAYOUT", a->layout, "Instances already on the GPU ('-' for none)")->required();
  fits->callback([&ctx, a] { ctx.exitCode = whatFits(ctx, *a); });

  auto* planCmd =
      mig->add_subcommand("plan", "Plan a repartition that keeps busy (*) instances in place");
  gpuOption(planCmd, true);
  planCmd->add_option("--current", a->current, "Current instances, busy ones marked '*'")
      ->required();
  planCmd->add_option("--target", a->target, "Wanted set of instances (starts optional)")
      ->required();
  planCmd->callback([&ctx, a] { ctx.exitCode = plan(ctx, *a); });

  auto* frag =
      mig->add_subcommand("fragmentation", "Free slices stranded for the profiles in demand");
  gpuOption(frag, true);
  frag->add_option("LAYOUT", a->layout, "Instances on the GPU ('-' for none)")->required();
  frag->add_option("--demand", a->demand,
                   "PROFILE=WEIGHT,... (default: every non-+me profile, equal weight)");
  frag->callback([&ctx, a] { ctx.exitCode = fragmentation(ctx, *a); });

  auto* exp = mig->add_subcommand("export", "Write layouts as a mig-parted config (YAML)");
  gpuOption(exp, false);
  exp->add_option("--config", a->configs, "NAME[:DEVICES]=LAYOUT, repeatable (needs --gpu)");
  exp->add_option("--cluster", a->clusterSpec,
                  "Cluster spec to export a node's current layouts from");
  exp->add_option("--node", a->node, "Node name (with --cluster)");
  exp->add_option("-o,--output", a->output, "Output file (default: stdout)");
  exp->callback([&ctx, a] { ctx.exitCode = exportConfig(ctx, *a); });
}

}  // namespace tessera::cli
