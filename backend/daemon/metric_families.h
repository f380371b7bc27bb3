#pragma once
// Building prometheus-cpp MetricFamily values by hand, for the collectors that produce their
// families at scrape time from a snapshot (CycleGauges, ProcessCollector) rather than keep live
// Gauge objects: a family whose series come and go (teams) is rebuilt whole at each scrape.
#include <prometheus/metric_family.h>

#include <string>
#include <utility>
#include <vector>

namespace tessera {

using LabelPairs = std::vector<std::pair<std::string, std::string>>;

// A family with no series yet: it is still listed (HELP and TYPE), as before the first cycle.
prometheus::MetricFamily emptyFamily(std::string name, std::string help,
                                     prometheus::MetricType type);
// Adds one series; `value` goes to the gauge or counter field, as the family's type says.
void addSeries(prometheus::MetricFamily& family, double value, const LabelPairs& labels = {});

}  // namespace tessera
