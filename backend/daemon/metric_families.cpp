#include "daemon/metric_families.h"

namespace tessera {

prometheus::MetricFamily emptyFamily(std::string name, std::string help,
                                     prometheus::MetricType type) {
  prometheus::MetricFamily f;
  f.name = std::move(name);
  f.help = std::move(help);
  f.type = type;
  return f;
}

void addSeries(prometheus::MetricFamily& family, double value, const LabelPairs& labels) {
  prometheus::ClientMetric m;
  for (const auto& [name, v] : labels) m.label.push_back({name, v});
  if (family.type == prometheus::MetricType::Counter)
    m.counter.value = value;
  else
    m.gauge.value = value;
  family.metric.push_back(std::move(m));
}

}  // namespace tessera
