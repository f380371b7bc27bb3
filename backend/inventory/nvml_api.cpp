#include "inventory/nvml_api.h"

#include <dlfcn.h>

namespace tessera {

NvmlApi::~NvmlApi() {
  if (initialised_) nvmlShutdown();
  if (handle_) dlclose(handle_);
}

template <class F>
Status NvmlApi::resolve(F& pointer, const char* name, const std::string& library) {
  pointer = reinterpret_cast<F>(dlsym(handle_, name));
  if (pointer) return okStatus();
  return Error{library + " has no " + name + ": the driver is too old for this probe", {}};
}

Expected<std::unique_ptr<NvmlApi>> NvmlApi::open(const std::string& library) {
  auto api = std::make_unique<NvmlApi>();
  api->handle_ = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!api->handle_) return Error{"NVML not found: cannot load " + library + ": " + dlerror(), {}};
#define TESSERA_NVML_RESOLVE(name, params) TESSERA_CHECK(api->resolve(api->name, #name, library));
  TESSERA_NVML_CALLS(TESSERA_NVML_RESOLVE)
#undef TESSERA_NVML_RESOLVE
  TESSERA_CHECK(api->resolve(api->nvmlErrorString, "nvmlErrorString", library));
  const nvmlReturn_t init = api->nvmlInit_v2();
  if (init != NVML_SUCCESS)
    return Error{"NVML nvmlInit_v2 failed: " + api->describe(init) +
                     " (is the NVIDIA driver loaded, and may this user open /dev/nvidia*?)",
                 {}};
  api->initialised_ = true;
  return api;
}

std::string NvmlApi::describe(nvmlReturn_t r) const {
  const char* text = nvmlErrorString ? nvmlErrorString(r) : nullptr;
  return std::string(text ? text : "unknown error") + " (" + std::to_string(r) + ")";
}

}  // namespace tessera
