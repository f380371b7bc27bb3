// The Nodes view's foot: nodes that announced themselves and wait for an operator's admission,
// and the warnings of the nodes' last reports (catalog mismatches), with the command that admits
// a node. Admission is an admin's `tessera ctl node admit`: top's token may not have that right.
#include <algorithm>

#include "service/node_attention.h"
#include "text.h"
#include "views.h"

namespace tessera::tui {
namespace {

std::string statusText(Admission a) {
  switch (a) {
    case Admission::Pending:
      return str(Top::tr("awaiting admission"));
    case Admission::Admitted:
      return str(Top::tr("admitted, joins next"));
    case Admission::Known:
      return str(Top::tr("in the model"));
  }
  return {};
}

// One row per warning (a node without any: one row); the node's own cells on its first row.
std::vector<TableRow> admissionRows(const std::vector<NodeInventoryView>& nodes) {
  std::vector<TableRow> rows;
  for (const NodeInventoryView& n : nodes) {
    const Role role = n.admission == Admission::Pending ? Role::Warn : Role::Normal;
    const size_t lines = std::max<size_t>(1, n.warnings.size());
    for (size_t i = 0; i < lines; ++i) {
      const std::string warning = i < n.warnings.size() ? n.warnings[i] : "";
      if (i > 0) {
        rows.push_back({{""}, {""}, {""}, {""}, {warning, Role::Warn}});
        continue;
      }
      rows.push_back({{n.node},
                      {statusText(n.admission), role},
                      {n.hostname, Role::Dim},
                      {std::to_string(n.gpus)},
                      {warning, Role::Warn}});
    }
  }
  return rows;
}

}  // namespace

int admissionLines(const State& s) {
  const auto nodes = nodesForOperator(s.data.inventory);
  if (nodes.empty()) return 0;
  return 2 + static_cast<int>(admissionRows(nodes).size());  // title, column header, rows
}

void drawAdmission(Screen& scr, const State& s, int x, int y, int w, int h) {
  if (h < 3) return;
  const auto nodes = nodesForOperator(s.data.inventory);
  const auto waiting = std::count_if(
      nodes.begin(), nodes.end(), [](const auto& n) { return n.admission == Admission::Pending; });
  const std::string title =
      waiting > 0 ? str(Top::tr("Nodes awaiting admission: %1   admit: tessera ctl node admit NODE")
                            .arg(waiting))
                  : str(Top::tr("Node warnings (the nodes' last inventory reports)"));
  scr.put(x, y, title, waiting > 0 ? Role::Warn : Role::Accent, w);
  TableView t{{{str(Top::tr("NODE")), 14, false, 10},
               {str(Top::tr("STATUS")), 20, false, 9},
               {str(Top::tr("HOST")), 14, false, 4},
               {str(Top::tr("GPUS")), 4, true, 6},
               {str(Top::tr("WARNING")), 12, false, 8, true}},
              admissionRows(nodes),
              {},
              -1};
  drawTable(scr, t, x, y + 1, w, h - 1);
}

}  // namespace tessera::tui
