// Scenario files (scheduler/scenario.cpp, commands via command_yaml.cpp): no crash, a refusal
// names what was wrong. A loaded scenario is not run (that is the engine, not the parser).
#include "fuzz_support.h"
#include "scheduler/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto scenario = loadScenario(fuzz::text(data, size), "/nonexistent-fuzz-dir/fuzz.yaml");
  if (!scenario) fuzz::checkError(scenario.error(), false);
  return 0;
}
