#include "cli/agent_inventory.h"

#include "inventory/inventory_output.h"

namespace tessera::cli {

namespace {

void addInstances(const GpuInventory& g, v1::InventoryGpu& out) {
  for (const auto& gi : g.gpuInstances) {
    auto* m = out.add_gpu_instances();
    m->set_id(gi.id);
    m->set_profile_id(gi.profileId);
    m->set_start(static_cast<uint32_t>(gi.placement.start));
    m->set_size(static_cast<uint32_t>(gi.placement.size));
    for (const auto& ci : gi.computeInstances) {
      auto* c = m->add_compute_instances();
      c->set_id(ci.id);
      c->set_profile_id(ci.profileId);
      c->set_start(static_cast<uint32_t>(ci.placement.start));
      c->set_size(static_cast<uint32_t>(ci.placement.size));
    }
  }
}

// The GPU as reported; `model` is null for one the agent's catalog lacks (tesserad refuses it
// with the name, and the agent's log carries the catalog stanza to add).
v1::InventoryGpu gpuMessage(const GpuInventory& g, const GpuModel* model,
                            std::vector<std::string>& warnings) {
  v1::InventoryGpu m;
  m.set_index(static_cast<uint32_t>(g.index));
  m.set_name(g.name);
  if (model) m.set_model(model->id);
  m.set_uuid(g.uuid);
  m.set_pci_bus_id(g.pciBusId);
  m.set_pci_device_id(g.pciDeviceId);
  m.set_memory_mib(g.memoryMiB);
  m.set_mig_supported(g.mig.supported);
  m.set_mig_enabled(g.mig.current);
  m.set_mig_pending(g.mig.pending);
  addInstances(g, m);
  if (g.mig.current && model) {
    if (auto layout = migLayoutText(g, *model))
      m.set_mig_layout(*layout);
    else
      warnings.push_back("GPU " + std::to_string(g.index) + ": " + layout.error().str());
  }
  for (const auto& link : g.nvlinks) {
    auto* l = m.add_nvlinks();
    l->set_link(static_cast<uint32_t>(link.link));
    l->set_peer_bus_id(link.peerBusId);
  }
  m.set_numa_node(g.numaNode);
  m.set_cpu_affinity(g.cpuAffinity);
  m.set_fault(g.fault);
  return m;
}

}  // namespace

v1::ReportInventoryRequest inventoryRequest(const NodeInventory& node, const CatalogCheck& check,
                                            const AgentPlace& place) {
  v1::ReportInventoryRequest r;
  r.set_node(place.node);
  r.set_leaf(place.leaf);
  r.set_pool(place.pool);
  r.set_cpus(node.cpus);
  r.set_memory_mib(node.memoryMiB);
  r.set_topo(topoText(node));
  r.set_hostname(node.hostname);
  r.set_source(node.source);
  r.set_driver_version(node.driverVersion);
  r.set_cuda_version(node.cudaVersion);
  std::vector<std::string> warnings = check.warnings;
  for (size_t i = 0; i < node.gpus.size(); ++i) {
    const GpuModel* model = i < check.models.size() ? check.models[i].get() : nullptr;
    *r.add_gpus() = gpuMessage(node.gpus[i], model, warnings);
  }
  for (const auto& w : warnings) r.add_warnings(w);
  for (const auto& n : node.notes) r.add_warnings(n);
  return r;
}

}  // namespace tessera::cli
