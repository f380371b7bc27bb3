// `nvidia-smi -q -x` XML (inventory/nvsmi_xml.cpp): no crash, a refusal names what was wrong.
#include "fuzz_support.h"
#include "inventory/nvsmi_xml.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto node = parseNvidiaSmiXml(fuzz::text(data, size), "nvsmi.xml");
  if (!node) fuzz::checkError(node.error(), false);
  return 0;
}
