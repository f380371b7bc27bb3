#include "inventory/nvsmi_xml.h"

#include <QXmlStreamReader>

#include <algorithm>
#include <optional>
#include <vector>

#include "core/strings.h"

namespace tessera {

namespace {

// More GPUs than any node holds means damaged or hostile input, not a node.
constexpr int kMaxGpus = 1024;

struct Where {
  int line = 0;
  int column = 0;
};

class SmiXmlParser {
 public:
  SmiXmlParser(std::string_view text, const std::string& fileName, int firstLine)
      : xml_(QByteArray(text.data(), static_cast<qsizetype>(text.size()))),
        file_(fileName),
        lineOffset_(firstLine - 1) {}

  Expected<NodeInventory> parse() {
    node_.source = "nvidia-smi";
    while (!xml_.atEnd()) {
      const auto token = xml_.readNext();
      if (token == QXmlStreamReader::StartElement) TESSERA_CHECK(startElement());
      if (token == QXmlStreamReader::EndElement) TESSERA_CHECK(endElement());
    }
    if (xml_.hasError()) return errorHere({}, "not valid XML: " + xml_.errorString().toStdString());
    if (!sawRoot_)
      return errorHere({}, "no <nvidia_smi_log> element: not `nvidia-smi -q -x` output");
    if (node_.driverVersion.empty())
      return errorHere("driver_version", "no <driver_version> element");
    return std::move(node_);
  }

 private:
  Error errorAt(Where w, std::string field, std::string message) const {
    return Error{std::move(message), SourceLocation{file_, w.line, w.column, std::move(field)}};
  }
  Where here() const {
    return {static_cast<int>(xml_.lineNumber()) + lineOffset_,
            static_cast<int>(xml_.columnNumber())};
  }
  Error errorHere(std::string field, std::string message) const {
    return errorAt(here(), std::move(field), std::move(message));
  }

  std::string path() const { return join(stack_, "/"); }
  std::string gpuField(std::string_view name) const {
    return "gpu[" + std::to_string(node_.gpus.size() - 1) + "]." + std::string(name);
  }

  Status startElement() {
    const std::string name = xml_.name().toString().toStdString();
    if (stack_.empty() && name != "nvidia_smi_log")
      return errorHere(name, "root element <" + name + ">, expected <nvidia_smi_log>");
    sawRoot_ = true;
    stack_.push_back(name);
    if (stack_.size() == 2 && name == "gpu") return startGpu();
    if (isLeafOfInterest()) {
      const Where w = here();
      TESSERA_CHECK(takeText(xml_.readElementText(QXmlStreamReader::SkipChildElements), w));
      stack_.pop_back();
    }
    return okStatus();
  }

  Status endElement() {
    if (stack_.size() == 2 && stack_.back() == "gpu") TESSERA_CHECK(checkGpuComplete());
    if (!stack_.empty()) stack_.pop_back();
    return okStatus();
  }

  Status startGpu() {
    if (node_.gpus.size() >= static_cast<size_t>(kMaxGpus))
      return errorHere("gpu", "more than " + std::to_string(kMaxGpus) + " <gpu> elements");
    GpuInventory gpu;
    gpu.index = static_cast<int>(node_.gpus.size());
    gpu.pciBusId = xml_.attributes().value("id").toString().toStdString();
    node_.gpus.push_back(std::move(gpu));
    gpuStart_ = here();
    return okStatus();
  }

  Status checkGpuComplete() const {
    const GpuInventory& gpu = node_.gpus.back();
    const auto missing = [&](std::string_view field) {
      return errorAt(gpuStart_, gpuField(field),
                     "GPU " + std::to_string(gpu.index) + " has no <" + std::string(field) + ">");
    };
    if (gpu.name.empty()) return missing("product_name");
    if (gpu.uuid.empty()) return missing("uuid");
    if (gpu.pciBusId.empty()) return missing("pci_bus_id");
    if (gpu.memoryMiB <= 0) return missing("fb_memory_usage/total");
    return okStatus();
  }

  bool isLeafOfInterest() const {
    static const std::vector<std::string> leaves = {"nvidia_smi_log/driver_version",
                                                    "nvidia_smi_log/cuda_version",
                                                    "nvidia_smi_log/gpu/product_name",
                                                    "nvidia_smi_log/gpu/product_architecture",
                                                    "nvidia_smi_log/gpu/uuid",
                                                    "nvidia_smi_log/gpu/mig_mode/current_mig",
                                                    "nvidia_smi_log/gpu/mig_mode/pending_mig",
                                                    "nvidia_smi_log/gpu/pci/pci_bus_id",
                                                    "nvidia_smi_log/gpu/pci/pci_device_id",
                                                    "nvidia_smi_log/gpu/fb_memory_usage/total"};
    const std::string p = path();
    return std::find(leaves.begin(), leaves.end(), p) != leaves.end();
  }

  Status takeText(const QString& raw, Where w) {
    const std::string rawText = raw.toStdString();
    const std::string value(trim(rawText));
    const std::string& leaf = stack_.back();
    if (stack_.size() == 2) {
      (leaf == "driver_version" ? node_.driverVersion : node_.cudaVersion) = value;
      return okStatus();
    }
    GpuInventory& gpu = node_.gpus.back();
    if (leaf == "product_name") gpu.name = value;
    if (leaf == "product_architecture") gpu.architecture = value;
    if (leaf == "uuid") gpu.uuid = value;
    if (leaf == "pci_bus_id") gpu.pciBusId = value;
    if (leaf == "current_mig" || leaf == "pending_mig") return takeMigMode(leaf, value, w, gpu);
    if (leaf == "pci_device_id") return takeDeviceId(value, w, gpu);
    if (leaf == "total") return takeMemory(value, w, gpu);
    return okStatus();
  }

  Status takeMigMode(const std::string& leaf, const std::string& value, Where w,
                     GpuInventory& gpu) const {
    if (value == "N/A") return okStatus();  // no MIG on this GPU or driver
    if (value != "Enabled" && value != "Disabled")
      return errorAt(w, gpuField("mig_mode/" + leaf),
                     "MIG mode '" + value + "', expected Enabled, Disabled or N/A");
    gpu.mig.supported = true;
    (leaf == "current_mig" ? gpu.mig.current : gpu.mig.pending) = value == "Enabled";
    return okStatus();
  }

  Status takeDeviceId(const std::string& value, Where w, GpuInventory& gpu) const {
    std::string hex = toLower(value);
    if (hex.starts_with("0x")) hex.erase(0, 2);
    const bool valid = !hex.empty() && hex.size() <= 8 &&
                       hex.find_first_not_of("0123456789abcdef") == std::string::npos;
    if (!valid)
      return errorAt(w, gpuField("pci/pci_device_id"),
                     "PCI device id '" + value + "', expected 8 hex digits such as 233010DE");
    gpu.pciDeviceId = static_cast<uint32_t>(std::stoul(hex, nullptr, 16));
    return okStatus();
  }

  Status takeMemory(const std::string& value, Where w, GpuInventory& gpu) const {
    const auto parts = split(value, ' ');
    const auto mib = parts.size() == 2 && parts[1] == "MiB" ? parseInt(parts[0]) : std::nullopt;
    if (!mib || *mib <= 0)
      return errorAt(w, gpuField("fb_memory_usage/total"),
                     "memory total '" + value + "', expected a size such as '81559 MiB'");
    gpu.memoryMiB = *mib;
    return okStatus();
  }

  QXmlStreamReader xml_;
  std::string file_;
  int lineOffset_ = 0;
  NodeInventory node_;
  std::vector<std::string> stack_;
  Where gpuStart_;
  bool sawRoot_ = false;
};

}  // namespace

Expected<NodeInventory> parseNvidiaSmiXml(std::string_view text, const std::string& fileName,
                                          int firstLine) {
  return SmiXmlParser(text, fileName, firstLine).parse();
}

}  // namespace tessera
