#pragma once
// Jobs and their runs as compact JSON for the backend's database rows. Enums travel by name so a
// reordered enum cannot silently change stored meaning; decoding checks every field and says
// which one is wrong (a row edited by hand, or written by a buggy build, is refused, not guessed).
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/expected.h"
#include "scheduler/engine.h"
#include "store/database.h"

namespace tessera {

nlohmann::json jobToJson(const Job& job);
Expected<Job> jobFromJson(const nlohmann::json& j);

// Where a running job sits, by node name and local GPU index (names survive a cluster reload;
// dense ids need not), with its start time and the work saved before this run.
struct StoredRun {
  std::vector<Engine::RestoredTask> tasks;
  Seconds started = 0;
  Seconds workKept = 0;
};
nlohmann::json runToJson(const Cluster& cluster, const JobRecord& record);
Expected<StoredRun> runFromJson(const Cluster& cluster, const nlohmann::json& j);

JobState jobStateFromName(std::string_view name, bool* ok);

// A sentence (core/text.h) for a reason_text column: a literal as a JSON string, a template as
// {"t": template, "a": [arguments]}. Literals are not stored at all (the English column says
// it), so textToJson is for sentences; decoding refuses anything else, naming the path.
nlohmann::json textToJson(const Text& t);
Expected<Text> textFromJson(const nlohmann::json& j);
// textFromJson of a stored column's characters.
Expected<Text> parseReasonText(const std::string& stored);
// A row's reason: the sentence in column `sentence`, or the English in column `english` as a
// literal when there is none (a row from before schema 4) or it does not decode (edited by hand).
// The English column is the record; the sentence only lets the console translate it, so a bad
// one costs the translation, never the row or the start of tesserad.
Text storedReason(const Statement& row, int english, int sentence);

}  // namespace tessera
