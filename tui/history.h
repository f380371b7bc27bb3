#pragma once
// The utilization view's history: per refresh, allocated, busy and SM-active for the cluster and
// each pool (fractions of their GPUs) and each team (in GPUs). A GPU's telemetry is per GPU, so a
// team gets the share of each GPU its jobs hold (an occupant's milli) times that GPU's
// utilization or SM activity; a GPU without telemetry counts as allocated but not busy.
#include <map>
#include <string>

#include "state.h"

namespace tessera::tui {

UtilPoint clusterPoint(const ClusterSnapshot& s);
std::map<std::string, UtilPoint> poolPoints(const ClusterSnapshot& s);  // fractions of the pool
std::map<std::string, UtilPoint> teamPoints(const ClusterSnapshot& s);  // GPUs; every team listed
// Appends the snapshot's points to the histories of `d`, keeping the last Data::kHistory.
void recordHistory(Data& d);

}  // namespace tessera::tui
