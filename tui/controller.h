#pragma once
// Keys to state changes: the k9s grammar (`:` views, `/` filter, `?` keys, Esc back, Enter
// drill-down) and the operator actions on the selection. Pure: what needs the session comes back
// as requests the program carries out (an action always goes through a dry run first, whose
// answer opens the confirmation).
#include <vector>

#include "state.h"

namespace tessera::tui {

// Keys beyond Unicode code points, as the terminal layer reports them.
enum Key : char32_t {
  kKeyUp = 0x110000,
  kKeyDown,
  kKeyPageUp,
  kKeyPageDown,
  kKeyHome,
  kKeyEnd,
  kKeyEnter,
  kKeyEscape,
  kKeyBackspace,
  kKeyTab,
  kKeyLeft,
  kKeyRight,
};

struct Request {
  enum class Kind : uint8_t { Quit, Refresh, Explain, DryRun, Apply };
  Kind kind = Kind::Refresh;
  JobId job = kNoJob;  // Explain
  Command command{};   // DryRun, Apply
};

std::vector<Request> onKey(State& s, char32_t key);

// The command an action builds for the current selection (and the prompt's value); nullopt when
// the action does not apply to what is selected.
std::optional<Command> commandFor(const State& s, Action a, const std::string& value);

// New data in, keeping the selection on the same job or node when it is still listed.
void replaceData(State& s, Data data);
// The dry run's answer: opens the confirmation.
void showDryRun(State& s, const Command& c, std::variant<CommandResult, ApiError> result);
// The applied command's answer, as the status message.
void showApplied(State& s, const Command& c, const std::variant<CommandResult, ApiError>& result);

}  // namespace tessera::tui
