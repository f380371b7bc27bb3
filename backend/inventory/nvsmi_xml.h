#pragma once
// `nvidia-smi -q -x` (DTD v13 and older): the driver, and per GPU its identity, memory and MIG
// mode. The XML has no NUMA or MIG profile data; topo -m and `mig -lgip/-lgipp/-lgi/-lci` add
// those.
#include <string>
#include <string_view>

#include "core/expected.h"
#include "inventory/node_inventory.h"

namespace tessera {

// Errors name `fileName`:line:column and the element ("gpu[0].uuid"); `firstLine` is the line
// number of the text's first line in that file (a recorded file starts with its command line).
Expected<NodeInventory> parseNvidiaSmiXml(std::string_view text, const std::string& fileName,
                                          int firstLine = 1);

}  // namespace tessera
