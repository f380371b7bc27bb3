#include "inventory/nvsmi_probe.h"

#include <algorithm>
#include <map>

#include "core/strings.h"
#include "inventory/nvsmi_mig_text.h"
#include "inventory/nvsmi_xml.h"
#include "slurm/process_runner.h"
#include "topology/nvsmi_topo.h"
#include "topology/yaml_reader.h"

namespace tessera {

namespace {

const std::map<std::string, std::string>& recordedFileNames() {
  static const std::map<std::string, std::string> names = {
      {"-q -x", "nvidia-smi-q.xml"},   {"topo -m", "topo-m.txt"},   {"mig -lgip", "mig-lgip.txt"},
      {"mig -lgipp", "mig-lgipp.txt"}, {"mig -lgi", "mig-lgi.txt"}, {"mig -lci", "mig-lci.txt"}};
  return names;
}

std::string joined(const std::vector<std::string>& args) {
  return join(args, " ");
}

// A recording starts with "$ command" and ends with "[rc N]"; both frame the output.
SmiOutput unframe(std::string text, std::string origin) {
  SmiOutput out{std::move(text), std::move(origin), 1, 0};
  if (out.text.starts_with("$ ")) {
    const auto eol = out.text.find('\n');
    out.text.erase(0, eol == std::string::npos ? out.text.size() : eol + 1);
    out.firstLine = 2;
  }
  std::string_view body = out.text;
  while (!body.empty() && (body.back() == '\n' || body.back() == '\r')) body.remove_suffix(1);
  const size_t start = body.rfind('\n') + 1;  // npos + 1 == 0: a one-line body
  const std::string_view last = body.substr(start);
  if (!last.starts_with("[rc ") || !last.ends_with(']')) return out;
  if (const auto rc = parseInt(last.substr(4, last.size() - 5))) {
    out.exitCode = *rc;
    out.text.erase(start);
  }
  return out;
}

// "No GPU instances found." (exit 6 on a MIG GPU without instances) is an answer, not a failure.
bool saysNoneFound(const SmiOutput& out) {
  const std::string_view text = trim(out.text);
  return text.starts_with("No ") && text.ends_with("found.");
}

Expected<SmiOutput> run(const SmiSource& smi, const std::vector<std::string>& args) {
  TESSERA_TRY(out, smi(args));
  if (out.exitCode != 0 && !saysNoneFound(out))
    return Error{out.origin + ": nvidia-smi " + joined(args) + " failed (exit " +
                     std::to_string(out.exitCode) + "): " + std::string(trim(out.text)),
                 {}};
  return out;
}

SmiText textOf(const SmiOutput& out) {
  return SmiText{out.text, out.origin, out.firstLine};
}

Status addTopology(const SmiSource& smi, NodeInventory& node) {
  TESSERA_TRY(out, run(smi, {"topo", "-m"}));
  auto topo = parseNvidiaSmiTopo(out.text, out.origin);
  if (!topo) {
    Error e = topo.error();
    if (e.where.line > 0) e.where.line += out.firstLine - 1;
    return e;
  }
  if (topo->gpus.size() != node.gpus.size())
    return Error{out.origin + ": topo -m shows " + std::to_string(topo->gpus.size()) +
                     " GPUs, nvidia-smi -q -x " + std::to_string(node.gpus.size()),
                 {}};
  node.links = topo->gpuGpu;
  for (size_t i = 0; i < node.gpus.size(); ++i) {
    node.gpus[i].cpuAffinity = topo->cpuAffinity[i];
    node.gpus[i].numaNode = topo->numaAffinity[i];
  }
  return okStatus();
}

Status addProfiles(const SmiSource& smi, NodeInventory& node) {
  TESSERA_TRY(lgip, run(smi, {"mig", "-lgip"}));
  TESSERA_TRY(profiles, parseMigProfiles(textOf(lgip)));
  TESSERA_TRY(lgipp, run(smi, {"mig", "-lgipp"}));
  TESSERA_CHECK(addMigPlacements(textOf(lgipp), profiles));
  for (auto& gpu : node.gpus) {
    auto& list = profiles[gpu.index];
    for (const auto& p : list)
      if (p.placements.empty())
        return Error{lgipp.origin + ": no placements for profile " + std::to_string(p.id) + " (" +
                         p.name + ") of GPU " + std::to_string(gpu.index),
                     {}};
    gpu.profiles = std::move(list);
  }
  return okStatus();
}

Status addInstances(const SmiSource& smi, NodeInventory& node) {
  TESSERA_TRY(lgi, run(smi, {"mig", "-lgi"}));
  TESSERA_TRY(instances, parseMigGpuInstances(textOf(lgi)));
  TESSERA_TRY(lci, run(smi, {"mig", "-lci"}));
  TESSERA_CHECK(addMigComputeInstances(textOf(lci), instances));
  for (auto& gpu : node.gpus) gpu.gpuInstances = std::move(instances[gpu.index]);
  return okStatus();
}

}  // namespace

SmiSource liveNvidiaSmi(const std::string& tool) {
  return [tool](const std::vector<std::string>& args) -> Expected<SmiOutput> {
    slurm::ProcessRunner runner(1);
    slurm::CommandRequest request;
    request.argv = {tool};
    request.argv.insert(request.argv.end(), args.begin(), args.end());
    request.timeout = std::chrono::milliseconds(20000);
    TESSERA_TRY(result, runner.run(request));
    if (result.timedOut || result.signal != 0)
      return Error{tool + " " + joined(args) + ": " + result.describe(), {}};
    const std::string origin = tool + " " + joined(args);
    return SmiOutput{result.out + result.err, origin, 1, result.exitCode};
  };
}

SmiSource recordedNvidiaSmi(const std::string& dir) {
  return [dir](const std::vector<std::string>& args) -> Expected<SmiOutput> {
    const auto name = recordedFileNames().find(joined(args));
    if (name == recordedFileNames().end())
      return Error{"no recorded output for nvidia-smi " + joined(args), {}};
    const std::string path = dir + "/" + name->second;
    TESSERA_TRY(text, readTextFile(path));
    return unframe(std::move(text), path);
  };
}

Expected<NodeInventory> probeNvidiaSmi(const SmiSource& smi) {
  TESSERA_TRY(xml, run(smi, {"-q", "-x"}));
  TESSERA_TRY(node, parseNvidiaSmiXml(xml.text, xml.origin, xml.firstLine));
  TESSERA_CHECK(addTopology(smi, node));
  const auto any = [&node](auto pred) {
    return std::any_of(node.gpus.begin(), node.gpus.end(), pred);
  };
  if (any([](const GpuInventory& g) { return g.mig.supported; }))
    TESSERA_CHECK(addProfiles(smi, node));
  if (any([](const GpuInventory& g) { return g.mig.current; }))
    TESSERA_CHECK(addInstances(smi, node));
  for (const auto& gpu : node.gpus)
    if (!gpu.mig.supported)
      node.notes.push_back("GPU " + std::to_string(gpu.index) + " (" + gpu.name +
                           "): MIG not supported by this GPU or driver (mig_mode N/A)");
  return node;
}

}  // namespace tessera
