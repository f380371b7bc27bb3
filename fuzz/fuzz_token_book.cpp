// tesserad's token file (rpc/auth.cpp TokenBook::parse): no crash, a refusal says what was wrong.
#include "fuzz_support.h"
#include "rpc/auth.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  auto book = TokenBook::parse(fuzz::text(data, size), "tokens.yaml");
  if (!book) fuzz::checkError(book.error(), false);
  return 0;
}
