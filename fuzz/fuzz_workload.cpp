// Workload spec YAML (workload/workload_spec.cpp): no crash, and a refusal names what was wrong.
#include "fuzz_support.h"
#include "workload/workload_spec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto workload = loadWorkload(fuzz::text(data, size), "fuzz.yaml");
  if (!workload) fuzz::checkError(workload.error(), false);
  return 0;
}
