#include "inventory/nvml_sampler.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <utility>

#include "inventory/nvml_api.h"

namespace tessera {

namespace {

// dcgm-exporter's Xid for "GPU has fallen off the bus", what NVML calls GPU_IS_LOST.
constexpr int kXidFallenOffTheBus = 79;
// dcgm-exporter's Xid for a double-bit ECC error (gpu-hardware.md, DCGM exporter metrics).
constexpr int kXidDoubleBitEcc = 48;

class Sampler {
 public:
  explicit Sampler(const NvmlApi& api) : api_(api) {}

  Expected<std::vector<GpuSample>> run() {
    unsigned count = 0;
    TESSERA_CHECK(call(api_.nvmlDeviceGetCount_v2(&count), "nvmlDeviceGetCount_v2"));
    std::vector<GpuSample> samples;
    for (unsigned i = 0; i < count; ++i) {
      nvmlDevice_t device = nullptr;
      TESSERA_CHECK(
          call(api_.nvmlDeviceGetHandleByIndex_v2(i, &device), "nvmlDeviceGetHandleByIndex_v2"));
      TESSERA_TRY(sample, sampleGpu(device, static_cast<int>(i)));
      samples.push_back(std::move(sample));
    }
    return samples;
  }

 private:
  Status call(nvmlReturn_t r, const char* name) const {
    if (r == NVML_SUCCESS) return okStatus();
    return Error{"NVML " + std::string(name) + " failed: " + api_.describe(r), {}};
  }

  // Identity first: without it a reading cannot be attributed, so its failure is an error.
  Expected<GpuSample> sampleGpu(nvmlDevice_t device, int index) const {
    GpuSample s;
    s.index = index;
    std::array<char, NVML_DEVICE_UUID_BUFFER_SIZE> text{};
    nvmlReturn_t r = api_.nvmlDeviceGetUUID(device, text.data(), text.size());
    if (r == NVML_ERROR_GPU_IS_LOST) return lostGpu(s);
    TESSERA_CHECK(call(r, "nvmlDeviceGetUUID"));
    s.uuid = text.data();
    TESSERA_CHECK(
        call(api_.nvmlDeviceGetName(device, text.data(), text.size()), "nvmlDeviceGetName"));
    s.name = text.data();
    nvmlPciInfo_t pci{};
    TESSERA_CHECK(call(api_.nvmlDeviceGetPciInfo_v3(device, &pci), "nvmlDeviceGetPciInfo_v3"));
    s.pciBusId = std::string(pci.busId, strnlen(pci.busId, sizeof pci.busId));
    if (!readings(device, s)) return lostGpu(s);
    return s;
  }

  static GpuSample lostGpu(GpuSample s) {
    s.lost = true;
    return s;
  }

  // False when any reading says the GPU is lost; unsupported readings are simply absent.
  bool readings(nvmlDevice_t device, GpuSample& s) const {
    bool lost = false;
    const auto ok = [&lost](nvmlReturn_t r) {
      lost = lost || r == NVML_ERROR_GPU_IS_LOST;
      return r == NVML_SUCCESS;
    };
    unsigned current = 0, pending = 0;
    const bool mig = ok(api_.nvmlDeviceGetMigMode(device, &current, &pending)) && current != 0;
    nvmlUtilization_t util{};
    if (!mig && ok(api_.nvmlDeviceGetUtilizationRates(device, &util))) s.utilPercent = util.gpu;
    nvmlMemory_t memory{};
    if (ok(api_.nvmlDeviceGetMemoryInfo(device, &memory))) {
      s.fbUsedMiB = static_cast<double>(memory.used >> 20);
      s.fbFreeMiB = static_cast<double>(memory.free >> 20);
    }
    unsigned celsius = 0;
    if (ok(api_.nvmlDeviceGetTemperature(device, NVML_TEMPERATURE_GPU, &celsius)))
      s.temperatureC = celsius;
    unsigned milliwatts = 0;
    if (ok(api_.nvmlDeviceGetPowerUsage(device, &milliwatts))) s.powerWatts = milliwatts / 1000.0;
    return !lost;
  }

  const NvmlApi& api_;
};

std::string labelValue(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

struct Metric {
  const char* name;
  const char* help;
  std::optional<double> GpuSample::*value;
};

constexpr std::array<Metric, 5> kMetrics{{
    {"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", &GpuSample::utilPercent},
    {"DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", &GpuSample::fbUsedMiB},
    {"DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", &GpuSample::fbFreeMiB},
    {"DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", &GpuSample::temperatureC},
    {"DCGM_FI_DEV_POWER_USAGE", "Power draw (in W).", &GpuSample::powerWatts},
}};

// The Xid a sample reports and its message (empty: tesserad names a known Xid itself).
std::pair<int, std::string> xidOf(const GpuSample& s) {
  if (s.lost) return {kXidFallenOffTheBus, "GPU has fallen off the bus (NVML: GPU is lost)"};
  if (s.xid > 0) return {s.xid, {}};
  const unsigned long long dbe = s.eccDbeVolatile.value_or(0);
  if (s.dbeEvent || dbe > 0)
    return {kXidDoubleBitEcc, "Double Bit ECC Error (NVML: " + std::to_string(dbe) +
                                  " uncorrected volatile ECC errors)"};
  return {0, {}};
}

std::string labels(const GpuSample& s, const std::string& hostname) {
  return "{gpu=\"" + std::to_string(s.index) + "\",UUID=\"" + labelValue(s.uuid) +
         "\",pci_bus_id=\"" + labelValue(s.pciBusId) + "\",device=\"nvidia" +
         std::to_string(s.index) + "\",modelName=\"" + labelValue(s.name) + "\",Hostname=\"" +
         labelValue(hostname) + "\"}";
}

}  // namespace

Expected<std::vector<GpuSample>> sampleNvml(const NvmlProbeOptions& options) {
  TESSERA_TRY(api, NvmlApi::open(options.library));
  return Sampler(*api).run();
}

std::string dcgmExposition(const std::vector<GpuSample>& samples, const std::string& hostname) {
  std::string out;
  for (const Metric& m : kMetrics) {
    out += std::string("# HELP ") + m.name + " " + m.help + "\n# TYPE " + m.name + " gauge\n";
    for (const auto& s : samples)
      if (!s.lost && s.*m.value)
        out += m.name + labels(s, hostname) + " " + number(*(s.*m.value)) + "\n";
  }
  out +=
      "# HELP DCGM_FI_DEV_ECC_DBE_VOL_TOTAL Total number of double-bit volatile ECC errors.\n"
      "# TYPE DCGM_FI_DEV_ECC_DBE_VOL_TOTAL counter\n";
  for (const auto& s : samples)
    if (!s.lost && s.eccDbeVolatile)
      out += "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL" + labels(s, hostname) + " " +
             std::to_string(*s.eccDbeVolatile) + "\n";
  out +=
      "# HELP DCGM_FI_DEV_XID_ERRORS Value of the last XID error encountered.\n"
      "# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n";
  for (const auto& s : samples) {
    const auto [xid, message] = xidOf(s);
    if (xid == 0) continue;
    out += "DCGM_FI_DEV_XID_ERRORS" + labels(s, hostname);
    std::string extra = ",err_code=\"" + std::to_string(xid) + "\"";
    if (!message.empty()) extra += ",err_msg=\"" + labelValue(message) + "\"";
    out.insert(out.size() - 1, extra);
    out += " " + std::to_string(xid) + "\n";
  }
  return out;
}

}  // namespace tessera
