// `nvidia-smi topo -m` text (topology/nvsmi_topo.cpp): no crash, a refusal names what was wrong.
#include "fuzz_support.h"
#include "topology/nvsmi_topo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto matrix = parseNvidiaSmiTopo(fuzz::text(data, size), "topo.txt");
  if (!matrix) fuzz::checkError(matrix.error(), false);
  return 0;
}
