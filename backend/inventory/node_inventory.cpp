#include "inventory/node_inventory.h"

#include <cstdio>

namespace tessera {

std::string pciDeviceIdText(uint32_t id) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", id);
  return buf;
}

}  // namespace tessera
