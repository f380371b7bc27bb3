// DCGM exporter (Prometheus exposition) text (sim/dcgm_metrics.cpp): no crash; a refusal names
// what was wrong and its line.
#include "fuzz_support.h"
#include "sim/dcgm_metrics.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto scrape = tessera::parseDcgmMetrics(fuzz::text(data, size), "fuzz.prom");
  if (!scrape) fuzz::checkError(scrape.error(), true);
  return 0;
}
