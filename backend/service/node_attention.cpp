#include "service/node_attention.h"

#include <algorithm>

namespace tessera {
namespace {

// Pending first: only an operator moves it on.
int rank(Admission a) {
  switch (a) {
    case Admission::Pending:
      return 0;
    case Admission::Admitted:
      return 1;
    case Admission::Known:
      return 2;
  }
  return 2;
}

}  // namespace

std::vector<NodeInventoryView> nodesForOperator(std::vector<NodeInventoryView> nodes) {
  std::erase_if(nodes, [](const NodeInventoryView& n) {
    return n.admission == Admission::Known && n.warnings.empty();
  });
  std::stable_sort(nodes.begin(), nodes.end(), [](const auto& a, const auto& b) {
    return rank(a.admission) != rank(b.admission) ? rank(a.admission) < rank(b.admission)
                                                  : a.node < b.node;
  });
  return nodes;
}

}  // namespace tessera
