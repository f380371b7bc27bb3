// `nvidia-smi mig -lgip/-lgipp/-lgi/-lci` tables (inventory/nvsmi_mig_text.cpp). The input is the
// four outputs in that order, separated by lines "#@@" (missing parts are empty), read the way
// the probe reads them: placements onto the profiles, compute instances onto the GPU instances.
#include <array>
#include <string_view>

#include "fuzz_support.h"
#include "inventory/nvsmi_mig_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tessera;
  std::array<std::string_view, 4> part{};
  std::string_view rest = fuzz::text(data, size);
  for (size_t i = 0; i < part.size(); ++i) {
    const size_t cut = i + 1 < part.size() ? rest.find("\n#@@\n") : std::string_view::npos;
    part[i] = rest.substr(0, cut);
    if (cut == std::string_view::npos) break;
    rest.remove_prefix(cut + 5);
  }
  auto profiles = parseMigProfiles({part[0], "lgip.txt"});
  if (!profiles) {
    fuzz::checkError(profiles.error(), false);
  } else if (auto placed = addMigPlacements({part[1], "lgipp.txt"}, *profiles); !placed) {
    fuzz::checkError(placed.error(), false);
  }
  auto instances = parseMigGpuInstances({part[2], "lgi.txt"});
  if (!instances) {
    fuzz::checkError(instances.error(), false);
  } else if (auto added = addMigComputeInstances({part[3], "lci.txt"}, *instances); !added) {
    fuzz::checkError(added.error(), false);
  }
  return 0;
}
