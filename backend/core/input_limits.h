#pragma once
// How long a name or a free-text field of a request may be, and what characters it may hold.
// Every path that takes work or an action (gRPC, the CLI, workload and scenario files, the
// console) applies the same limits, so a 1 MiB job name is refused at the door instead of being
// stored, logged and shown in every table. Documented in docs/workload-spec.md#limits.
#include <cstddef>
#include <optional>
#include <string_view>

#include <string>
#include <vector>

#include "core/expected.h"
#include "core/text.h"

namespace tessera {

// Names: jobs, teams, priority classes, pools, GPU models, MIG profiles, nodes, GPUs,
// reservations. 253 is what Kubernetes allows an object name (a DNS subdomain), so a name that
// came from there always fits.
inline constexpr size_t kMaxNameChars = 253;
// Free text an operator writes: a drain reason.
inline constexpr size_t kMaxReasonChars = 1024;
// A job's command line, paths and batch script: what a cluster runs. Scripts may hold lines and
// tabs; 1 MiB is Slurm's own default limit on a batch script (max_script_size).
inline constexpr size_t kMaxCommandChars = 65536;
inline constexpr size_t kMaxScriptBytes = 1 << 20;
// Items of one list in a request (allowed GPU models, pinned GPUs or nodes).
inline constexpr size_t kMaxListItems = 4096;

// Characters (Unicode code points) of well-formed UTF-8 text.
size_t utf8Length(std::string_view s);

// Why `s` cannot be taken as a name or text field of at most `maxChars` characters (not UTF-8,
// a control character, too long), or nullopt when it can.
std::optional<Text> textProblem(std::string_view s, size_t maxChars);
// textProblem as a refusal about `field` (a bad argument).
Status checkTextField(std::string_view s, size_t maxChars, const std::string& field);
// Program text (a command line, a batch script): UTF-8 of at most `maxBytes` bytes, without NUL
// or other C0 controls than tab, line feed and carriage return.
Status checkProgramField(std::string_view s, size_t maxBytes, const std::string& field);
// A list of names: at most kMaxListItems, each a name ("field[3]" in the refusal).
Status checkNameList(const std::vector<std::string>& names, const std::string& field);

}  // namespace tessera
