#include "rpc/inventory_convert.h"

#include "core/input_limits.h"

namespace tessera::rpc {

namespace {

constexpr uint32_t kMaxGpuIndex = 1023;  // far above any board; keeps the index an int
constexpr int kMaxWarnings = 256;
constexpr size_t kMaxTopoChars = 65536;  // 64 GPUs' matrix is under 20 KiB

Error badField(const std::string& field, const std::string& what) {
  return Error{field + ": " + what, {}};
}

Expected<InventoryGpu> gpuFromProto(const v1::InventoryGpu& m, const std::string& at) {
  if (m.index() > kMaxGpuIndex)
    return badField(at + ".index", std::to_string(m.index()) + " is not a GPU index");
  if (m.memory_mib() < 0)
    return badField(at + ".memory_mib", std::to_string(m.memory_mib()) + " is negative");
  TESSERA_CHECK(checkTextField(m.name(), kMaxNameChars, at + ".name"));
  TESSERA_CHECK(checkTextField(m.uuid(), kMaxNameChars, at + ".uuid"));
  TESSERA_CHECK(checkTextField(m.mig_layout(), kMaxReasonChars, at + ".mig_layout"));
  TESSERA_CHECK(checkTextField(m.fault(), kMaxReasonChars, at + ".fault"));
  if (!m.mig_enabled() && !m.mig_layout().empty())
    return badField(at + ".mig_layout", "given while mig_enabled is false");
  InventoryGpu g;
  g.index = static_cast<int>(m.index());
  g.name = m.name();
  g.model = m.model();
  g.uuid = m.uuid();
  g.pciBusId = m.pci_bus_id();
  g.memoryMiB = m.memory_mib();
  g.migEnabled = m.mig_enabled();
  if (m.mig_enabled() && !m.mig_layout().empty()) g.migLayout = m.mig_layout();
  g.fault = m.fault();
  return g;
}

// What a node joining the model is built from: host CPUs and memory, the topo matrix, leaf, pool.
Status placeFromProto(const v1::ReportInventoryRequest& m, InventoryReport& r) {
  if (m.cpus() < 0) return badField("cpus", std::to_string(m.cpus()) + " is negative");
  if (m.memory_mib() < 0)
    return badField("memory_mib", std::to_string(m.memory_mib()) + " is negative");
  TESSERA_CHECK(checkProgramField(m.topo(), kMaxTopoChars, "topo"));  // tabs and lines
  TESSERA_CHECK(checkTextField(m.leaf(), kMaxNameChars, "leaf"));
  TESSERA_CHECK(checkTextField(m.pool(), kMaxNameChars, "pool"));
  r.cpus = m.cpus();
  r.memoryMiB = m.memory_mib();
  r.topo = m.topo();
  r.leaf = m.leaf();
  r.pool = m.pool();
  return okStatus();
}

}  // namespace

Expected<InventoryReport> inventoryReportFromProto(const v1::ReportInventoryRequest& m) {
  InventoryReport r;
  r.node = m.node();
  r.hostname = m.hostname();
  r.source = m.source();
  r.driverVersion = m.driver_version();
  TESSERA_CHECK(checkTextField(m.driver_version(), kMaxNameChars, "driver_version"));
  TESSERA_CHECK(checkTextField(m.source(), kMaxNameChars, "source"));
  TESSERA_CHECK(placeFromProto(m, r));
  for (int i = 0; i < m.gpus_size(); ++i) {
    TESSERA_TRY(g, gpuFromProto(m.gpus(i), "gpus[" + std::to_string(i) + "]"));
    r.gpus.push_back(std::move(g));
  }
  if (m.warnings_size() > kMaxWarnings)
    return badField("warnings", std::to_string(m.warnings_size()) + " warnings; at most " +
                                    std::to_string(kMaxWarnings));
  for (int i = 0; i < m.warnings_size(); ++i) {
    TESSERA_CHECK(
        checkTextField(m.warnings(i), kMaxReasonChars, "warnings[" + std::to_string(i) + "]"));
    r.warnings.push_back(m.warnings(i));
  }
  return r;
}

void inventoryReplyToProto(const InventoryReply& r, v1::ReportInventoryResponse& out) {
  out.set_admission(admissionName(r.admission));
  for (const auto& c : r.changes) out.add_changes(c);
  for (const auto& w : r.warnings) out.add_warnings(w);
}

void nodeInventoryToProto(const std::vector<NodeInventoryView>& nodes,
                          v1::ListNodeInventoryResponse& out) {
  for (const auto& n : nodes) {
    auto* m = out.add_nodes();
    m->set_node(n.node);
    m->set_hostname(n.hostname);
    m->set_admission(admissionName(n.admission));
    m->set_reported_at(n.reportedAt);
    m->set_gpus(static_cast<uint32_t>(n.gpus));
    m->set_source(n.source);
    m->set_driver_version(n.driverVersion);
    for (const auto& w : n.warnings) m->add_warnings(w);
    for (const auto& g : n.missingGpus) m->add_missing_gpus(g);
  }
}

Expected<std::vector<NodeInventoryView>> nodeInventoryFromProto(
    const v1::ListNodeInventoryResponse& m) {
  std::vector<NodeInventoryView> out;
  for (const auto& n : m.nodes()) {
    const auto admission = admissionFromName(n.admission());
    if (!admission)
      return Error{
          "nodes[" + std::to_string(out.size()) + "].admission: unknown '" + n.admission() + "'",
          {}};
    NodeInventoryView v;
    v.node = n.node();
    v.hostname = n.hostname();
    v.source = n.source();
    v.driverVersion = n.driver_version();
    v.admission = *admission;
    v.reportedAt = n.reported_at();
    v.gpus = static_cast<int>(n.gpus());
    v.warnings.assign(n.warnings().begin(), n.warnings().end());
    v.missingGpus.assign(n.missing_gpus().begin(), n.missing_gpus().end());
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace tessera::rpc
