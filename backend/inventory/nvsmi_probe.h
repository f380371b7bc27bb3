#pragma once
// The inventory from nvidia-smi when NVML cannot be loaded: `-q -x` (identity, memory, MIG mode),
// `topo -m` (PCIe/NVLink classes, NUMA, CPU affinity) and `mig -lgip/-lgipp/-lgi/-lci`. The
// commands run live, or their saved output is read from a directory (as recorded in
// tests/data/real-gpu/: a "$ command" first line and an "[rc N]" last line are dropped).
#include <functional>
#include <string>
#include <vector>

#include "core/expected.h"
#include "inventory/node_inventory.h"

namespace tessera {

struct SmiOutput {
  std::string text;
  std::string origin;  // a file name, or the command line; for error messages
  int firstLine = 1;   // the line of `text`'s first line in `origin`
  int exitCode = 0;
};

// Answers one nvidia-smi invocation, given its arguments ({"-q", "-x"}).
using SmiSource = std::function<Expected<SmiOutput>(const std::vector<std::string>& args)>;

// Runs `tool` (a path or a name looked up in PATH), without a shell.
SmiSource liveNvidiaSmi(const std::string& tool);
// Reads nvidia-smi-q.xml, topo-m.txt, mig-lgip.txt, mig-lgipp.txt, mig-lgi.txt, mig-lci.txt.
SmiSource recordedNvidiaSmi(const std::string& dir);

Expected<NodeInventory> probeNvidiaSmi(const SmiSource& smi);

}  // namespace tessera
