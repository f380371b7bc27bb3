#pragma once
// The tables of `nvidia-smi mig -lgip` (profiles), `-lgipp` (legal placements), `-lgi` (GPU
// instances) and `-lci` (compute instances). They answer "No MIG-enabled devices found." when MIG
// is off, which parses as no instances.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "inventory/node_inventory.h"

namespace tessera {

// One text and where its lines are in the file it came from (for file:line in errors).
struct SmiText {
  std::string_view text;
  std::string fileName;
  int firstLine = 1;
};

using ProfilesByGpu = std::map<int, std::vector<MigProfileInfo>>;
using InstancesByGpu = std::map<int, std::vector<GpuInstanceInfo>>;

Expected<ProfilesByGpu> parseMigProfiles(const SmiText& lgip);
// Fills the placements of profiles parsed from -lgip; a profile -lgip did not list is an error.
Status addMigPlacements(const SmiText& lgipp, ProfilesByGpu& profiles);
Expected<InstancesByGpu> parseMigGpuInstances(const SmiText& lgi);
// Adds -lci's compute instances to their GPU instances.
Status addMigComputeInstances(const SmiText& lci, InstancesByGpu& instances);

}  // namespace tessera
