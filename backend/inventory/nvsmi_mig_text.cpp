#include "inventory/nvsmi_mig_text.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "core/strings.h"

namespace tessera {

namespace {

// Bounds that real tables never reach; past them the text is damaged, not a GPU.
constexpr int kMaxGpuIndex = 1023;
constexpr int kMaxSmallNumber = 1 << 20;

struct TableRow {
  int line = 0;  // in the file
  std::vector<std::string_view> tokens;
};

std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

std::vector<std::string_view> textLines(std::string_view text) {
  auto lines = split(text, '\n');
  for (auto& l : lines)
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
  return lines;
}

// The "| ... |" lines between the header rule (=====) and the end, borders removed.
std::vector<TableRow> tableRows(const SmiText& in) {
  std::vector<TableRow> rows;
  bool inBody = false;
  const auto lines = textLines(in.text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = trim(lines[i]);
    if (line.starts_with("|=")) {
      inBody = true;
      continue;
    }
    if (!inBody || !line.starts_with('|')) continue;
    std::string_view inner = line.substr(1);
    if (inner.ends_with('|')) inner.remove_suffix(1);
    rows.push_back({in.firstLine + static_cast<int>(i), words(inner)});
  }
  return rows;
}

Error errorAt(const SmiText& in, int line, std::string field, std::string message) {
  return Error{std::move(message), SourceLocation{in.fileName, line, 0, std::move(field)}};
}

std::optional<int> smallInt(std::string_view s) {
  const auto v = parseInt(s);
  if (!v || *v < 0 || *v > kMaxSmallNumber) return std::nullopt;
  return v;
}

std::optional<int> gpuIndex(std::string_view s) {
  const auto v = smallInt(s);
  return v && *v <= kMaxGpuIndex ? v : std::nullopt;
}

// "2:1" -> {2, 1}
std::optional<MigPlacement> placementOf(std::string_view s) {
  const auto parts = split(s, ':');
  if (parts.size() != 2) return std::nullopt;
  const auto start = smallInt(parts[0]);
  const auto size = smallInt(parts[1]);
  if (!start || !size || *size == 0) return std::nullopt;
  return MigPlacement{*start, *size};
}

// "MIG 1g.10gb" -> "1g.10gb"; the compute slices are the number before "g".
std::optional<int> computeSlicesOf(std::string_view name) {
  const auto g = name.find('g');
  if (g == std::string_view::npos || g == 0) return std::nullopt;
  return smallInt(name.substr(0, g));
}

std::optional<int> mibOfGiB(std::string_view s) {
  char* end = nullptr;
  const std::string text(s);
  const double gib = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0' || !(gib > 0) || gib > kMaxSmallNumber)
    return std::nullopt;
  return static_cast<int>(std::lround(gib * 1024.0));
}

// Row 1: GPU, "MIG", name, ID, free/total, memory GiB, P2P, SM, DEC, ENC; row 2: CE, JPEG, OFA.
constexpr size_t kProfileTokens = 10;
constexpr size_t kProfileEngineTokens = 3;

Expected<MigProfileInfo> profileOfRows(const SmiText& in, const TableRow& first,
                                       const TableRow& second) {
  const auto& t = first.tokens;
  const auto bad = [&](std::string field, std::string why) {
    return errorAt(in, first.line, std::move(field), "-lgip row: " + why);
  };
  if (t.size() != kProfileTokens || t[1] != "MIG")
    return bad("", "expected 'GPU MIG NAME ID FREE/TOTAL GiB P2P SM DEC ENC', found " +
                       std::to_string(t.size()) + " columns");
  if (second.tokens.size() != kProfileEngineTokens)
    return errorAt(in, second.line, "", "-lgip row: expected the CE, JPEG and OFA counts");
  MigProfileInfo p;
  p.name = std::string(t[2]);
  const auto id = smallInt(t[3]);
  const auto counts = split(t[4], '/');
  const auto total = counts.size() == 2 ? smallInt(counts[1]) : std::nullopt;
  const auto mib = mibOfGiB(t[5]);
  const auto slices = computeSlicesOf(p.name);
  const auto sm = smallInt(t[7]), dec = smallInt(t[8]), enc = smallInt(t[9]);
  const auto ce = smallInt(second.tokens[0]), jpeg = smallInt(second.tokens[1]),
             ofa = smallInt(second.tokens[2]);
  if (!id) return bad("ID", "bad profile id '" + std::string(t[3]) + "'");
  if (!total) return bad("Instances", "bad instance count '" + std::string(t[4]) + "'");
  if (!mib) return bad("Memory", "bad memory size '" + std::string(t[5]) + "'");
  if (!slices) return bad("Name", "profile name '" + p.name + "' does not start with <N>g");
  if (!sm || !dec || !enc || !ce || !jpeg || !ofa) return bad("SM", "bad SM or engine count");
  p.id = *id;
  p.instanceCount = *total;
  p.memoryMiB = *mib;
  p.computeSlices = *slices;
  p.sm = *sm;
  p.engines = MigEngines{*ce, *dec, *enc, *jpeg, *ofa};
  return p;
}

MigProfileInfo* findProfile(std::vector<MigProfileInfo>& profiles, int id) {
  const auto it = std::find_if(profiles.begin(), profiles.end(),
                               [id](const MigProfileInfo& p) { return p.id == id; });
  return it == profiles.end() ? nullptr : &*it;
}

// "{0,2,4}:2" -> placements at 0, 2, 4 of size 2.
std::optional<std::vector<MigPlacement>> placementsOf(std::string_view s) {
  if (!s.starts_with('{')) return std::nullopt;
  const auto close = s.find("}:");
  if (close == std::string_view::npos) return std::nullopt;
  const auto size = smallInt(s.substr(close + 2));
  if (!size || *size == 0) return std::nullopt;
  std::vector<MigPlacement> out;
  for (auto start : split(s.substr(1, close - 1), ',')) {
    const auto v = smallInt(trim(start));
    if (!v) return std::nullopt;
    out.push_back({*v, *size});
  }
  return out;
}

}  // namespace

Expected<ProfilesByGpu> parseMigProfiles(const SmiText& in) {
  ProfilesByGpu out;
  const auto rows = tableRows(in);
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].tokens.empty() || !gpuIndex(rows[i].tokens[0])) continue;  // continuation rows
    if (i + 1 >= rows.size())
      return errorAt(in, rows[i].line, "", "-lgip row: the CE/JPEG/OFA line is missing");
    TESSERA_TRY(profile, profileOfRows(in, rows[i], rows[i + 1]));
    auto& list = out[*gpuIndex(rows[i].tokens[0])];
    if (findProfile(list, profile.id))
      return errorAt(in, rows[i].line, "ID",
                     "-lgip lists profile " + std::to_string(profile.id) + " twice");
    list.push_back(std::move(profile));
    ++i;
  }
  return out;
}

// "GPU  0 Profile ID  9 Placements: {0,4}:4" (or "Placement : {0}:8" for a single one).
Status addMigPlacements(const SmiText& in, ProfilesByGpu& profiles) {
  const auto lines = textLines(in.text);
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto t = words(lines[i]);
    if (t.empty() || t[0] != "GPU") continue;
    const int line = in.firstLine + static_cast<int>(i);
    const bool shaped = t.size() >= 6 && t[2] == "Profile" && t[3] == "ID";
    const auto gpu = shaped ? gpuIndex(t[1]) : std::nullopt;
    const auto id = shaped ? smallInt(t[4]) : std::nullopt;
    const auto placements = shaped ? placementsOf(t.back()) : std::nullopt;
    if (!gpu || !id || !placements)
      return errorAt(in, line, "",
                     "-lgipp line: expected 'GPU N Profile ID P Placements: {S,...}:SIZE'");
    MigProfileInfo* profile = findProfile(profiles[*gpu], *id);
    if (!profile)
      return errorAt(in, line, "Profile ID",
                     "-lgipp names profile " + std::to_string(*id) + " of GPU " +
                         std::to_string(*gpu) + ", which -lgip does not list");
    profile->placements = *placements;
  }
  return okStatus();
}

// GPU, "MIG", name, profile id, instance id, start:size.
Expected<InstancesByGpu> parseMigGpuInstances(const SmiText& in) {
  InstancesByGpu out;
  for (const auto& row : tableRows(in)) {
    const auto& t = row.tokens;
    if (t.empty()) continue;
    const bool shaped = t.size() == 6 && t[1] == "MIG";
    const auto gpu = shaped ? gpuIndex(t[0]) : std::nullopt;
    const auto profile = shaped ? smallInt(t[3]) : std::nullopt;
    const auto id = shaped ? smallInt(t[4]) : std::nullopt;
    const auto placement = shaped ? placementOf(t[5]) : std::nullopt;
    if (!gpu || !profile || !id || !placement)
      return errorAt(in, row.line, "",
                     "-lgi row: expected 'GPU MIG NAME PROFILE-ID INSTANCE-ID START:SIZE'");
    out[*gpu].push_back(GpuInstanceInfo{*id, *profile, *placement, {}});
  }
  for (auto& [gpu, list] : out) sortByPlacement(list);
  return out;
}

// GPU, GPU instance id, "MIG", name, CI profile id, CI id, start:size.
Status addMigComputeInstances(const SmiText& in, InstancesByGpu& instances) {
  for (const auto& row : tableRows(in)) {
    const auto& t = row.tokens;
    if (t.empty()) continue;
    const bool shaped = t.size() == 7 && t[2] == "MIG";
    const auto gpu = shaped ? gpuIndex(t[0]) : std::nullopt;
    const auto gi = shaped ? smallInt(t[1]) : std::nullopt;
    const auto profile = shaped ? smallInt(t[4]) : std::nullopt;
    const auto id = shaped ? smallInt(t[5]) : std::nullopt;
    const auto placement = shaped ? placementOf(t[6]) : std::nullopt;
    if (!gpu || !gi || !profile || !id || !placement)
      return errorAt(in, row.line, "",
                     "-lci row: expected 'GPU GI-ID MIG NAME PROFILE-ID CI-ID START:SIZE'");
    auto& list = instances[*gpu];
    const auto owner = std::find_if(list.begin(), list.end(),
                                    [&](const GpuInstanceInfo& g) { return g.id == *gi; });
    if (owner == list.end())
      return errorAt(in, row.line, "GPU Instance ID",
                     "-lci names GPU instance " + std::to_string(*gi) + " of GPU " +
                         std::to_string(*gpu) + ", which -lgi does not list");
    owner->computeInstances.push_back({*id, *profile, *placement});
  }
  for (auto& [gpu, list] : instances)
    for (auto& gi : list) sortByPlacement(gi.computeInstances);
  return okStatus();
}

}  // namespace tessera
