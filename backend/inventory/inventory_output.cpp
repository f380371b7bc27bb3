#include "inventory/inventory_output.h"

#include <nlohmann/json.hpp>

#include "clusterspec/topo_template.h"
#include "core/strings.h"
#include "topology/mig_layout.h"
#include "topology/nvsmi_topo.h"

namespace tessera {

namespace {

using nlohmann::json;

std::string indented(const std::string& text, const std::string& prefix) {
  std::string out;
  for (auto line : split(text, '\n')) {
    if (line.empty()) {
      out += "\n";
      continue;
    }
    out += prefix + std::string(line) + "\n";
  }
  while (out.size() > 1 && out.ends_with("\n\n")) out.pop_back();
  return out;
}

Expected<std::shared_ptr<const GpuModel>> onlyModel(const CatalogCheck& check) {
  if (!check.allKnown()) return Error{check.unknown.front(), {}};
  if (check.models.empty()) return Error{"the node has no GPUs", {}};
  for (const auto& m : check.models)
    if (m != check.models.front())
      return Error{"the node mixes GPU models (" + check.models.front()->id + ", " + m->id +
                       "); a cluster-spec node template has one model",
                   {}};
  return check.models.front();
}

Expected<std::string> templateYaml(const NodeInventory& node,
                                   const std::shared_ptr<const GpuModel>& model,
                                   const std::string& name) {
  const std::string topo = topoText(node);
  if (topo.empty())
    return doubleQuoted(name) + ":\n  gpu_model: " + model->id +
           "\n  gpus: " + std::to_string(node.gpus.size()) + "\n";
  TESSERA_TRY(matrix, parseNvidiaSmiTopo(topo, "probe"));
  TESSERA_TRY(hw, hardwareFromTopo(matrix, model, name));
  return nodeTemplateYaml(*hw, topo);
}

std::string gpuComment(const GpuInventory& g) {
  std::string mig = !g.mig.supported ? "no MIG" : g.mig.current ? "MIG enabled" : "MIG disabled";
  if (g.mig.supported && g.mig.pending != g.mig.current)
    mig += g.mig.pending ? " (enabled after reset)" : " (disabled after reset)";
  return "# GPU " + std::to_string(g.index) + ": " + g.name + ", " + g.uuid + ", PCI " +
         g.pciBusId + " (" + pciDeviceIdText(g.pciDeviceId) + "), " + std::to_string(g.memoryMiB) +
         " MiB, " + mig + ", NUMA " + (g.numaNode < 0 ? "unknown" : std::to_string(g.numaNode)) +
         ", CPUs " + (g.cpuAffinity.empty() ? "unknown" : g.cpuAffinity) + "\n";
}

Expected<std::string> nodeGpusYaml(const NodeInventory& node, const GpuModel& model) {
  std::string out;
  for (const auto& g : node.gpus) {
    if (!g.mig.current) continue;
    TESSERA_TRY(layout, migLayoutText(g, model));
    out += "      \"" + std::to_string(g.index) + "\": {mig: " + doubleQuoted(layout) + "}\n";
  }
  return out.empty() ? out : "    gpus:\n" + out;
}

json placementJson(const MigPlacement& p) {
  return {{"start", p.start}, {"size", p.size}};
}

json profileJson(const MigProfileInfo& p) {
  json placements = json::array();
  for (const auto& pl : p.placements) placements.push_back(placementJson(pl));
  return {{"id", p.id},
          {"name", p.name.empty() ? json(nullptr) : json(p.name)},
          {"compute_slices", p.computeSlices},
          {"instances", p.instanceCount},
          {"sm", p.sm},
          {"memory_mib", p.memoryMiB},
          {"engines",
           {{"ce", p.engines.ce},
            {"dec", p.engines.dec},
            {"enc", p.engines.enc},
            {"jpeg", p.engines.jpeg},
            {"ofa", p.engines.ofa}}},
          {"placements", placements}};
}

json gpuInstanceJson(const GpuInstanceInfo& gi, const GpuModel* model) {
  json cis = json::array();
  for (const auto& ci : gi.computeInstances)
    cis.push_back(
        {{"id", ci.id}, {"profile_id", ci.profileId}, {"placement", placementJson(ci.placement)}});
  json profile = nullptr;
  if (model && model->mig)
    if (const int i = model->mig->profileIndexById(gi.profileId); i >= 0)
      profile = model->mig->profiles[static_cast<size_t>(i)].name;
  return {{"id", gi.id},
          {"profile_id", gi.profileId},
          {"profile", profile},
          {"placement", placementJson(gi.placement)},
          {"compute_instances", cis}};
}

json gpuJson(const GpuInventory& g, const GpuModel* model) {
  json profiles = json::array(), instances = json::array(), devices = json::array(),
       peers = json::array();
  for (const auto& p : g.profiles) profiles.push_back(profileJson(p));
  for (const auto& gi : g.gpuInstances) instances.push_back(gpuInstanceJson(gi, model));
  for (const auto& d : g.migDevices)
    devices.push_back({{"uuid", d.uuid},
                       {"gpu_instance_id", d.gpuInstanceId},
                       {"compute_instance_id", d.computeInstanceId}});
  for (const auto& l : g.nvlinks) peers.push_back({{"link", l.link}, {"peer_bus_id", l.peerBusId}});
  json layout = nullptr;
  if (model && g.mig.current)
    if (auto text = migLayoutText(g, *model)) layout = *text;
  return {
      {"index", g.index},
      {"name", g.name},
      {"architecture", g.architecture},
      {"model", model ? json(model->id) : json(nullptr)},
      {"uuid", g.uuid},
      {"pci_bus_id", g.pciBusId},
      {"pci_device_id", pciDeviceIdText(g.pciDeviceId)},
      {"memory_mib", g.memoryMiB},
      {"mig",
       {{"supported", g.mig.supported}, {"current", g.mig.current}, {"pending", g.mig.pending}}},
      {"mig_layout", layout},
      {"mig_profiles", profiles},
      {"gpu_instances", instances},
      {"mig_devices", devices},
      {"nvlink_peers", peers},
      {"numa_node", g.numaNode < 0 ? json(nullptr) : json(g.numaNode)},
      {"cpu_affinity", g.cpuAffinity},
      {"fault", g.fault.empty() ? json(nullptr) : json(g.fault)}};
}

}  // namespace

std::string topoText(const NodeInventory& node) {
  if (node.links.size() != node.gpus.size() || node.gpus.empty()) return {};
  std::string out;
  for (size_t i = 0; i < node.gpus.size(); ++i) out += "\tGPU" + std::to_string(i);
  out += "\tCPU Affinity\tNUMA Affinity\n";
  for (size_t a = 0; a < node.gpus.size(); ++a) {
    const GpuInventory& g = node.gpus[a];
    out += "GPU" + std::to_string(a);
    for (const auto& link : node.links[a]) out += "\t" + link.str();
    out += "\t" + g.cpuAffinity + "\t" +
           (g.numaNode < 0 ? std::string("N/A") : std::to_string(g.numaNode)) + "\n";
  }
  return out;
}

Expected<std::string> migLayoutText(const GpuInventory& gpu, const GpuModel& model) {
  if (!model.mig) return Error{model.id + " has no MIG table in the catalog", {}};
  MigLayout layout;
  for (const auto& gi : gpu.gpuInstances) {
    const int profile = model.mig->profileIndexById(gi.profileId);
    if (profile < 0)
      return Error{"GPU " + std::to_string(gpu.index) + ": GPU instance " + std::to_string(gi.id) +
                       " has profile id " + std::to_string(gi.profileId) +
                       ", which catalog model " + model.id + " does not have",
                   {}};
    MigInstance inst;
    inst.profile = static_cast<int8_t>(profile);
    inst.start = static_cast<int8_t>(gi.placement.start);
    const int giSlices = model.mig->profiles[static_cast<size_t>(profile)].computeSlices;
    const bool oneWholeCi =
        gi.computeInstances.size() == 1 && gi.computeInstances.front().placement.size == giSlices;
    if (!oneWholeCi && gi.computeInstances.size() <= static_cast<size_t>(kMaxComputeInstances)) {
      inst.ciCount = static_cast<uint8_t>(gi.computeInstances.size());
      for (size_t i = 0; i < gi.computeInstances.size(); ++i)
        inst.ciSlices[i] = static_cast<uint8_t>(gi.computeInstances[i].placement.size);
    }
    layout.add(inst);
  }
  if (layout.empty()) return std::string("-");
  layout.sortByStart();
  return formatMigLayout(model, layout);
}

Expected<std::string> inventorySpecYaml(const NodeInventory& node, const CatalogCheck& check,
                                        const SpecNames& names) {
  for (const auto& g : node.gpus)
    if (!g.fault.empty())
      return Error{"GPU " + std::to_string(g.index) + " has " + g.fault +
                       ": a spec entry needs every GPU of the node",
                   {}};
  TESSERA_TRY(model, onlyModel(check));
  const std::string templ = names.templ.empty() ? names.node + "-hw" : names.templ;
  TESSERA_TRY(templateText, templateYaml(node, model, templ));
  TESSERA_TRY(gpus, nodeGpusYaml(node, *model));
  std::string out = "# tessera node probe: " + names.node + " (source " + node.source +
                    ", driver " + node.driverVersion + "): " + std::to_string(node.gpus.size()) +
                    " x " + model->id + "\n";
  for (const auto& g : node.gpus) out += gpuComment(g);
  out +=
      "# Paste the node_templates and nodes entries into a cluster spec (docs/cluster-spec.md);\n"
      "# this text also loads on its own as a one-node spec.\n"
      "version: 1\nname: " +
      doubleQuoted("probe-" + names.node) + "\nnode_templates:\n" + indented(templateText, "  ") +
      "fabric:\n  leafs:\n    - {name: " + doubleQuoted(names.leaf) +
      "}\nnodes:\n  - name: " + doubleQuoted(names.node) +
      "\n    template: " + doubleQuoted(templ) + "\n    leaf: " + doubleQuoted(names.leaf) +
      "\n    driver: " + doubleQuoted(node.driverVersion) + "\n" + gpus;
  return out;
}

std::string inventoryJson(const NodeInventory& node, const CatalogCheck& check) {
  json gpus = json::array();
  for (size_t i = 0; i < node.gpus.size(); ++i)
    gpus.push_back(
        gpuJson(node.gpus[i], i < check.models.size() ? check.models[i].get() : nullptr));
  json links = json::array();
  for (const auto& row : node.links) {
    json r = json::array();
    for (const auto& l : row) {
      const std::string cell = l.str();
      r.push_back(std::string(trim(cell)));
    }
    links.push_back(r);
  }
  const json out = {{"hostname", node.hostname},
                    {"source", node.source},
                    {"driver_version", node.driverVersion},
                    {"cuda_version", node.cudaVersion},
                    {"gpus", gpus},
                    {"links", links},
                    {"warnings", check.warnings},
                    {"unknown_models", check.unknown},
                    {"notes", node.notes}};
  return out.dump(2) + "\n";
}

}  // namespace tessera
