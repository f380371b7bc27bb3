#include "store/node_holds_codec.h"

#include "store/job_codec.h"

namespace tessera {
namespace {

using json = nlohmann::json;

// The English is the record, with the sentence beside it ("reason_text") when a fault or the
// simulator gave one, so the console can still translate it after a restart.
void putReason(json& out, const Text& reason) {
  out["reason"] = reason.english();
  if (!reason.isLiteral()) out["reason_text"] = textToJson(reason);
}

// A sentence that does not decode, or no longer says the same as the English (one of the two
// edited by hand), costs only the translation.
Text storedReason(const json& entry) {
  const std::string english = entry.value("reason", "");
  if (!entry.contains("reason_text")) return literal(english);
  auto sentence = textFromJson(entry["reason_text"]);
  return sentence && sentence->english() == english ? std::move(*sentence) : literal(english);
}

json holdToJson(const Cluster& c, const NodeHold& h) {
  json out{{"owner", holdOwnerName(h.owner)}, {"down", h.down}, {"since", h.since}};
  if (h.gpu) out["gpu"] = c.gpuName(*h.gpu);
  putReason(out, h.reason);
  return out;
}

Expected<NodeHold> holdFromJson(const Cluster& c, const json& in, const std::string& where) {
  if (!in.is_object()) return Error{where + " is not an object", {}};
  if (in.contains("reason") && !in["reason"].is_string())
    return Error{where + ".reason is not a string", {}};
  const auto owner = holdOwnerFromName(in.value("owner", ""));
  if (!owner) return Error{where + ".owner '" + in.value("owner", "") + "' is unknown", {}};
  NodeHold h{*owner, std::nullopt, storedReason(in), in.value("down", false),
             in.value("since", Seconds{0})};
  if (in.contains("gpu")) {
    const Gpu* g = c.findGpu(in.value("gpu", ""));
    if (!g) return Error{where + ".gpu '" + in.value("gpu", "") + "' is not in this cluster", {}};
    h.gpu = g->id;
  }
  return h;
}

// Written before holds were kept: a state, or {state, reason}.
Expected<NodeHold> legacyHold(const json& value, const std::string& where) {
  const json& state = value.is_object() && value.contains("state") ? value["state"] : value;
  const std::string s = state.is_string() ? state.get<std::string>() : "";
  if (s != "draining" && s != "down") return Error{where + " is '" + s + "'", {}};
  if (value.is_object() && value.contains("reason") && !value["reason"].is_string())
    return Error{where + "'s reason is not a string", {}};
  const Text reason = value.is_object() ? storedReason(value) : Text();
  if (s == "down") return NodeHold{HoldOwner::Failure, std::nullopt, reason, true, 0};
  return NodeHold{HoldOwner::Operator, std::nullopt, reason, false, 0};
}

}  // namespace

json nodeHoldsToJson(const Engine& e) {
  json out = json::object();
  for (const Node& n : e.cluster().nodes()) {
    const NodeHolds& holds = e.nodeHolds(n.id);
    if (holds.empty()) continue;
    json entry{{"state", nodeStateName(holds.state())}};
    putReason(entry, holds.reason());
    json list = json::array();
    for (const NodeHold& h : holds.all()) list.push_back(holdToJson(e.cluster(), h));
    entry["holds"] = std::move(list);
    out[n.name] = std::move(entry);
  }
  return out;
}

Status restoreNodeHolds(Engine& e, const json& stored) {
  for (const auto& [name, value] : stored.items()) {
    const Node* n = e.cluster().findNode(name);
    const std::string where = "stored node states: " + name;
    if (!n) return Error{"stored node states: unknown node '" + name + "'", {}};
    if (!value.is_object() || !value.contains("holds")) {
      TESSERA_TRY(hold, legacyHold(value, where));
      TESSERA_CHECK(e.putNodeHold(n->id, std::move(hold)));
      continue;
    }
    if (!value["holds"].is_array()) return Error{where + ".holds is not a list", {}};
    for (size_t i = 0; i < value["holds"].size(); ++i) {
      TESSERA_TRY(hold, holdFromJson(e.cluster(), value["holds"][i],
                                     where + ".holds[" + std::to_string(i) + "]"));
      TESSERA_CHECK(e.putNodeHold(n->id, std::move(hold)));
    }
  }
  return okStatus();
}

}  // namespace tessera
