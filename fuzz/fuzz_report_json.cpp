// Report JSON (report/report_json.cpp, schema tessera.report/v1): a refusal names what was wrong;
// an accepted report written back by reportToJson reads again to the same JSON.
#include "fuzz_support.h"
#include "report/report_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  fuzz::checkRoundTrip(
      fuzz::text(data, size),
      [](std::string_view text, const std::string& where) { return reportFromJson(text, where); },
      [](const Report& report) { return reportToJson(report); });
  return 0;
}
