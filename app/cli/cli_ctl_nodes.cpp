// tessera ctl's node-inventory calls: `node list` shows every node whose agent reported its
// inventory (admission, GPUs held out because the node lacks them, catalog mismatches), and
// `node admit NAME` lets a node that announced itself join the running cluster model.
#include <string>

#include "cli/cli_ctl_internal.h"

namespace tessera::cli::ctl {

namespace {

int listNodes(Call& c) {
  return callAndPrint(
      c, &Stub::ListNodeInventory, v1::ListNodeInventoryRequest{},
      [&c](const v1::ListNodeInventoryResponse& r) {
        Table t;
        t.add({"NODE", "HOST", "ADMISSION", "GPUS", "DRIVER", "SOURCE", "REPORTED"});
        for (const auto& n : r.nodes())
          t.add({n.node(), orDash(n.hostname()), n.admission(), std::to_string(n.gpus()),
                 orDash(n.driver_version()), orDash(n.source()), std::to_string(n.reported_at())});
        t.print(c.out());
        // Findings under the table, one per line, so they can be grepped.
        for (const auto& n : r.nodes()) {
          for (const auto& g : n.missing_gpus())
            c.out() << n.node() << ": GPU " << g << " held out (missing)\n";
          for (const auto& w : n.warnings()) c.out() << n.node() << ": warning: " << w << "\n";
        }
      });
}

int admitNode(Call& c, const std::string& node) {
  v1::AdmitNodeRequest request;
  request.set_node(node);
  return callAndPrint(c, &Stub::AdmitNode, request,
                      [&c](const v1::AdmitNodeResponse& r) { c.out() << r.message() << "\n"; });
}

}  // namespace

void addNodeCalls(const Registrar& r) {
  auto* node = r.addCall("node", "Nodes as their agents report them: list, admit");
  node->require_subcommand(1);
  auto* list = node->add_subcommand(
      "list",
      "Every node whose agent reported its inventory: admission (known, pending-admission, "
      "admitted), GPUs held out because the node lacks them, catalog mismatches (viewer)");
  r.onCall(list, [](Call& c) { return listNodes(c); });
  auto name = std::make_shared<std::string>();
  auto* admit = node->add_subcommand(
      "admit",
      "Admit a node that announced itself and is not in the cluster model: it joins the model "
      "(built from its inventory, under its agent's --leaf and --pool) and jobs may run on it "
      "(admin)");
  admit->add_option("NAME", *name, "The node, as `node list` names it")->required();
  r.onCall(admit, [name](Call& c) { return admitNode(c, *name); });
}

}  // namespace tessera::cli::ctl
