#include "slurm/scontrol_text.h"

#include <cctype>

#include "core/hostlist.h"
#include "core/strings.h"

namespace tessera::slurm {

namespace {

// Fields whose value is free text written by people or the kernel: they run to the end of their
// line in the multi-line form. Which fields those are depends on the record: a job's Reason is
// one word followed by more fields, a node's Reason is free text at the end.
bool isFreeText(std::string_view recordKind, std::string_view key) {
  if (key == "Comment" || key == "AdminComment" || key == "SystemComment") return true;
  return recordKind == "NodeName" && (key == "Reason" || key == "OS");
}

bool keyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == ':' || c == '/';
}

// The length of the key at `pos` (a letter, then key characters, then '='), or 0.
size_t keyLengthAt(std::string_view s, size_t pos) {
  if (pos >= s.size() || std::isalpha(static_cast<unsigned char>(s[pos])) == 0) return 0;
  size_t end = pos;
  while (end < s.size() && keyChar(s[end])) ++end;
  return end < s.size() && s[end] == '=' ? end - pos : 0;
}

// The next key start after `from`: a key right after a space. npos when there is none.
size_t nextKey(std::string_view s, size_t from) {
  for (size_t i = from; i < s.size(); ++i)
    if (s[i] == ' ' && keyLengthAt(s, i + 1) > 0) return i + 1;
  return std::string_view::npos;
}

// -o joins the lines of the multi-line form with two spaces: split there.
std::vector<std::string_view> segments(std::string_view line) {
  std::vector<std::string_view> out;
  size_t start = 0;
  while (start < line.size()) {
    size_t gap = line.find("  ", start);
    if (gap == std::string_view::npos) gap = line.size();
    if (auto seg = trim(line.substr(start, gap - start)); !seg.empty()) out.push_back(seg);
    start = gap + 2;
  }
  return out;
}

Status parseSegment(std::string_view seg, KeyValues& out) {
  size_t pos = 0;
  while (pos < seg.size()) {
    const size_t keyLen = keyLengthAt(seg, pos);
    if (keyLen == 0)
      return Error{"expected Key=value at '" + std::string(seg.substr(pos, 30)) + "'", {}};
    const std::string key(seg.substr(pos, keyLen));
    const size_t valueStart = pos + keyLen + 1;
    const std::string kind = out.items.empty() ? key : out.items.front().first;
    const size_t next = isFreeText(kind, key) ? std::string_view::npos : nextKey(seg, valueStart);
    const size_t valueEnd = next == std::string_view::npos ? seg.size() : next - 1;
    out.items.emplace_back(key, std::string(trim(seg.substr(valueStart, valueEnd - valueStart))));
    pos = next == std::string_view::npos ? seg.size() : next;
  }
  return okStatus();
}

std::vector<std::string_view> lines(std::string_view text) {
  std::vector<std::string_view> out;
  for (auto line : split(text, '\n')) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    out.push_back(line);
  }
  return out;
}

Expected<std::vector<std::string>> hostsOf(const KeyValues& kv, std::string_view key) {
  const std::string expr = kv.get(key);
  if (expr.empty() || expr == "(null)") return std::vector<std::string>{};
  return expandHostlist(expr);
}

Expected<SlurmSwitch> switchOf(const KeyValues& kv) {
  SlurmSwitch sw;
  sw.name = kv.get("SwitchName");
  if (sw.name.empty()) return Error{"no SwitchName", {}};
  sw.level = parseInt(kv.get("Level", "0")).value_or(0);
  sw.linkSpeed = parseInt(kv.get("LinkSpeed", "0")).value_or(0);
  TESSERA_TRY(nodes, hostsOf(kv, "Nodes"));
  TESSERA_TRY(switches, hostsOf(kv, "Switches"));
  sw.nodes = std::move(nodes);
  sw.switches = std::move(switches);
  return sw;
}

Error atLine(size_t index, const Error& e) {
  return Error{e.message, SourceLocation{{}, static_cast<int>(index + 1), 0, {}}};
}

}  // namespace

bool KeyValues::has(std::string_view key) const {
  for (const auto& [k, v] : items)
    if (k == key) return true;
  return false;
}

std::string KeyValues::get(std::string_view key, std::string_view fallback) const {
  for (const auto& [k, v] : items)
    if (k == key) return v;
  return std::string(fallback);
}

Expected<KeyValues> parseScontrolRecord(std::string_view line) {
  KeyValues out;
  for (auto seg : segments(line)) {
    // Two spaces inside a free-text value: what follows is no field, so it is more of the value.
    if (keyLengthAt(seg, 0) == 0 && !out.items.empty()) {
      out.items.back().second += "  " + std::string(seg);
      continue;
    }
    TESSERA_CHECK(parseSegment(seg, out));
  }
  return out;
}

Expected<std::vector<KeyValues>> parseScontrolRecords(std::string_view text) {
  std::vector<KeyValues> out;
  const auto all = lines(text);
  for (size_t i = 0; i < all.size(); ++i) {
    if (trim(all[i]).empty()) continue;
    auto record = parseScontrolRecord(all[i]);
    if (!record) return atLine(i, record.error());
    out.push_back(std::move(record).value());
  }
  return out;
}

KeyValues parseShowConfig(std::string_view text) {
  KeyValues out;
  for (auto line : lines(text)) {
    const size_t eq = line.find(" = ");
    if (eq == std::string_view::npos) continue;
    auto key = trim(line.substr(0, eq));
    if (key.empty() || key.find(' ') != std::string_view::npos) continue;
    out.items.emplace_back(std::string(key), std::string(trim(line.substr(eq + 3))));
  }
  return out;
}

Expected<std::vector<SlurmSwitch>> parseShowTopology(std::string_view text) {
  TESSERA_TRY(records, parseScontrolRecords(text));
  std::vector<SlurmSwitch> out;
  for (size_t i = 0; i < records.size(); ++i) {
    auto sw = switchOf(records[i]);
    if (!sw) return Error{"switch " + std::to_string(i + 1) + ": " + sw.error().message, {}};
    out.push_back(std::move(sw).value());
  }
  return out;
}

std::string userNameOf(std::string_view value) {
  value = trim(value);
  return std::string(value.substr(0, value.find('(')));
}

}  // namespace tessera::slurm
