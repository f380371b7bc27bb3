#pragma once
// Plain value summaries of a cluster (what `tessera cluster show` prints, what the console's
// status line counts), computed from the model so every face shows the same numbers.
#include <map>
#include <string>
#include <vector>

#include "topology/cluster.h"

namespace tessera {

struct ClusterSummary {
  struct ModelCount {
    std::string model;
    std::string productName;
    int gpus = 0;
    int nodes = 0;
  };
  struct LeafInfo {
    std::string name;
    std::string spine;
    int nodes = 0;
    int gpus = 0;
  };
  struct DomainKindCount {
    std::string kind;
    int domains = 0;
    int gpusEach = 0;
  };
  struct LayoutCount {
    std::string model;
    std::string layout;
    int gpus = 0;
  };

  std::string name;
  int nodes = 0, nodesUp = 0, nodesDraining = 0, nodesDown = 0;
  int gpus = 0;
  std::vector<std::string> pools;
  std::vector<ModelCount> models;  // most GPUs first
  int spines = 0;
  std::vector<LeafInfo> leafs;
  std::vector<DomainKindCount> nvlinkDomains;  // grouped by kind and size
  int exclusiveGpus = 0, migGpus = 0, migInstances = 0, timeSlicedGpus = 0, timeSliceReplicas = 0;
  int mpsGpus = 0;                      // GPUs running MPS, alone or inside their MIG instances
  std::vector<LayoutCount> migLayouts;  // most GPUs first
};

ClusterSummary summarize(const Cluster& cluster);
std::string formatSummary(const ClusterSummary& s);
std::string summaryJson(const ClusterSummary& s);

}  // namespace tessera
