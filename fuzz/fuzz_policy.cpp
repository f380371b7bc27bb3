// Policy YAML (scheduler/policy.cpp): a refusal names what was wrong; an accepted policy written
// back by writePolicy loads again to the same text.
#include "fuzz_support.h"
#include "scheduler/policy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  fuzz::checkRoundTrip(
      fuzz::text(data, size),
      [](std::string_view text, const std::string& file) { return loadPolicy(text, file); },
      [](const Policy& policy) { return writePolicy(policy); });
  return 0;
}
