#include "scheduler/node_holds.h"

#include <algorithm>
#include <array>

namespace tessera {
namespace {

constexpr std::array<const char*, 6> kOwnerNames{"operator", "failure",  "gpu-fault",
                                                 "mig-reconfigure", "executor", "inventory"};

}  // namespace

const char* holdOwnerName(HoldOwner o) {
  return kOwnerNames[static_cast<size_t>(o)];
}

std::optional<HoldOwner> holdOwnerFromName(std::string_view name) {
  for (size_t i = 0; i < kOwnerNames.size(); ++i)
    if (name == kOwnerNames[i]) return static_cast<HoldOwner>(i);
  return std::nullopt;
}

void NodeHolds::put(NodeHold hold) {
  auto same = std::find_if(holds_.begin(), holds_.end(),
                           [&](const NodeHold& h) { return h.sameKey(hold.owner, hold.gpu); });
  if (same != holds_.end()) holds_.erase(same);
  holds_.push_back(std::move(hold));
}

bool NodeHolds::remove(HoldOwner owner, std::optional<GpuId> gpu) {
  return std::erase_if(holds_, [&](const NodeHold& h) { return h.sameKey(owner, gpu); }) > 0;
}

const NodeHold* NodeHolds::find(HoldOwner owner, std::optional<GpuId> gpu) const {
  for (const NodeHold& h : holds_)
    if (h.sameKey(owner, gpu)) return &h;
  return nullptr;
}

NodeState NodeHolds::state() const {
  if (holds_.empty()) return NodeState::Up;
  const bool down = std::any_of(holds_.begin(), holds_.end(), [](auto& h) { return h.down; });
  return down ? NodeState::Down : NodeState::Draining;
}

const Text& NodeHolds::reason() const {
  static const Text none;
  if (holds_.empty()) return none;
  if (const NodeHold* op = find(HoldOwner::Operator); op && !op->reason.empty()) return op->reason;
  for (auto h = holds_.rbegin(); h != holds_.rend(); ++h)
    if (!h->reason.empty()) return h->reason;
  return none;
}

}  // namespace tessera
