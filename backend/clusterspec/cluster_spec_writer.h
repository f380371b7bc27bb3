#pragma once
// Writes a Cluster back as a cluster spec in its explicit form: every template, switch and node
// listed, no generators. Loading the output gives the same cluster (names, fabric, NVLink domains,
// link matrices, sharing); it is what `tessera cluster export` prints, so an operator can see what
// the generators produced and a scheduler input can be saved and replayed.
#include <string>

#include "topology/cluster.h"

namespace tessera {

std::string writeClusterSpec(const Cluster& cluster);

}  // namespace tessera
