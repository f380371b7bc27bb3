#include "state.h"

#include <array>
#include <utility>

namespace tessera::tui {

namespace {

constexpr std::array<std::pair<View, const char*>, 7> kCommands{{{View::Jobs, "jobs"},
                                                                 {View::Pending, "pending"},
                                                                 {View::Nodes, "nodes"},
                                                                 {View::Gpus, "gpus"},
                                                                 {View::Mig, "mig"},
                                                                 {View::Events, "events"},
                                                                 {View::Teams, "teams"}}};

}  // namespace

const char* viewCommand(View v) {
  for (const auto& [view, name] : kCommands)
    if (view == v) return name;
  return "";
}

std::optional<View> viewFromCommand(std::string_view name) {
  for (const auto& [view, command] : kCommands)
    if (name == command) return view;
  // k9s accepts singulars and short forms: `:job`, `:node`, `:gpu`, `:ev`.
  for (const auto& [view, command] : kCommands)
    if (name.size() >= 2 && std::string_view(command).starts_with(name)) return view;
  return std::nullopt;
}

}  // namespace tessera::tui
