// tesserad's config file (daemon/config.cpp, read from a path): loaded and validated; no crash,
// and a refusal says what was wrong.
#include "daemon/config.h"
#include "fuzz_support.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  TesseradConfig config;
  if (auto loaded = loadTesseradConfig(fuzz::writeInput(data, size, "yaml"), config); !loaded) {
    fuzz::checkError(loaded.error(), false);
  } else if (auto valid = validateTesseradConfig(config); !valid) {
    fuzz::checkError(valid.error(), false);
  }
  return 0;
}
