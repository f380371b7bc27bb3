#pragma once
// Moved to core (the Slurm layer expands hostlists too and must not depend on clusterspec);
// this forwarding header keeps the includes of clusterspec and its tests unchanged.
#include "core/hostlist.h"
