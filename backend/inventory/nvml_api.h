#pragma once
// libnvidia-ml.so.1 loaded with dlopen and initialised: the calls of nvml_abi.h as function
// pointers, resolved by name. Shared by the inventory probe and the telemetry sampler.
#include <memory>
#include <string>

#include "core/expected.h"
#include "inventory/nvml_abi.h"

namespace tessera {

class NvmlApi {
 public:
#define TESSERA_NVML_POINTER(name, params) decltype(&::name) name = nullptr;
  TESSERA_NVML_CALLS(TESSERA_NVML_POINTER)
#undef TESSERA_NVML_POINTER
  decltype(&::nvmlErrorString) nvmlErrorString = nullptr;

  NvmlApi() = default;
  NvmlApi(const NvmlApi&) = delete;
  NvmlApi& operator=(const NvmlApi&) = delete;
  // Shuts NVML down (when open() initialised it) and unloads the library.
  ~NvmlApi();

  // Loads `library`, resolves every call and runs nvmlInit_v2. "NVML not found: ..." when the
  // library does not load; the call and NVML's text when a symbol is missing or init fails.
  static Expected<std::unique_ptr<NvmlApi>> open(const std::string& library);

  // "Not Supported (3)": NVML's own words plus the code, which is what NVIDIA's forums quote.
  [[nodiscard]] std::string describe(nvmlReturn_t r) const;

 private:
  template <class F>
  Status resolve(F& pointer, const char* name, const std::string& library);

  void* handle_ = nullptr;
  bool initialised_ = false;
};

}  // namespace tessera
