#pragma once
// The text of `scontrol show ... -o` and `scontrol show config`, for what squeue/sinfo --json do
// not give (22.05's scontrol has no --json): the controller's configuration (SlurmUser), the
// switch tree (show topology), reservations, and job/node fields for diagnostics.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/expected.h"

namespace tessera::slurm {

// One record: key=value pairs in Slurm's order. Values are raw ("(null)", "N/A" kept).
struct KeyValues {
  std::vector<std::pair<std::string, std::string>> items;

  [[nodiscard]] bool has(std::string_view key) const;
  // The first value of `key`, or `fallback` when the key is absent.
  [[nodiscard]] std::string get(std::string_view key, std::string_view fallback = {}) const;
};

// One line of `scontrol show job|node|reservation|topology -o`. Values may contain spaces
// ("Reason=psu swap [root@2026-11-27T06:28:22]") and '=' ("Comment=tessera:a=b"): a key starts
// only after a space, as a word followed by '='; the free-text fields (Comment, Reason, OS, ...)
// run to the end of their line of the multi-line form, which -o marks with two spaces. A
// free-text value cannot be told from a field when it contains two spaces followed by "Word=".
Expected<KeyValues> parseScontrolRecord(std::string_view line);
// One record per non-empty line; an error names the 1-based line.
Expected<std::vector<KeyValues>> parseScontrolRecords(std::string_view text);

// `scontrol show config`: "Key = value" lines (the header, the section titles and the
// "Slurmctld(primary) at ... is UP" trailer are skipped).
KeyValues parseShowConfig(std::string_view text);

// `scontrol show topology` (topology/tree): one switch per line.
struct SlurmSwitch {
  std::string name;
  int level = 0;
  int linkSpeed = 0;
  std::vector<std::string> nodes;     // expanded; for an upper switch, every node below it
  std::vector<std::string> switches;  // the switches directly below, expanded
};
Expected<std::vector<SlurmSwitch>> parseShowTopology(std::string_view text);

// "root(0)" -> "root": the user name of a "name(uid)" value such as SlurmUser.
std::string userNameOf(std::string_view value);

}  // namespace tessera::slurm
