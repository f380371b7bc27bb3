#include "topology/mig_layout.h"

#include <algorithm>

#include "core/engine_text.h"
#include "core/strings.h"

namespace tessera {

bool MigLayout::add(const MigInstance& inst) {
  if (full()) return false;
  items_[count_++] = inst;
  return true;
}

void MigLayout::removeAt(int i) {
  for (int k = i; k + 1 < count_; ++k)
    items_[static_cast<size_t>(k)] = items_[static_cast<size_t>(k + 1)];
  --count_;
}

void MigLayout::sortByStart() {
  std::stable_sort(items_.begin(), items_.begin() + count_, [](const auto& a, const auto& b) {
    const int sa = a.start < 0 ? 1000 : a.start;
    const int sb = b.start < 0 ? 1000 : b.start;
    return sa < sb;
  });
}

bool MigLayout::allPlaced() const {
  return std::all_of(begin(), end(), [](const auto& i) { return i.placed(); });
}

uint16_t MigLayout::occupiedMask(const MigGeometry& g) const {
  uint16_t mask = 0;
  for (const auto& i : *this)
    if (i.placed())
      mask =
          static_cast<uint16_t>(mask | g.profiles[static_cast<size_t>(i.profile)].maskAt(i.start));
  return mask;
}

bool operator==(const MigLayout& a, const MigLayout& b) {
  if (a.count_ != b.count_) return false;
  for (int i = 0; i < a.count_; ++i) {
    const auto& x = a[i];
    const auto& y = b[i];
    if (!x.sameShape(y) || x.start != y.start || x.busy != y.busy) return false;
  }
  return true;
}

namespace {

Error syntaxError(std::string_view token, Text why) {
  return Error::of(phrase(text::kMigItem, std::string(token), std::move(why)));
}

Expected<MigInstance> parseCis(const MigGeometry& g, MigInstance inst, std::string_view list,
                               std::string_view token) {
  const auto& p = g.profiles[static_cast<size_t>(inst.profile)];
  for (auto part : split(list, '+')) {
    part = trim(part);
    if (part.size() < 2 || part.back() != 'c')
      return syntaxError(token, phrase(text::kMigCiShape, std::string(part)));
    auto k = parseInt(part.substr(0, part.size() - 1));
    if (!k || *k < 1 || *k > p.computeSlices)
      return syntaxError(token, phrase(text::kMigCiRange, std::string(part), p.computeSlices));
    if (inst.ciCount == kMaxComputeInstances)
      return syntaxError(token, phrase(text::kMigTooManyCi));
    inst.ciSlices[inst.ciCount++] = static_cast<uint8_t>(*k);
  }
  return inst;
}

std::string profileNames(const MigGeometry& g) {
  std::vector<std::string> names;
  for (const auto& p : g.profiles) names.push_back(p.name);
  return join(names, ", ");
}

}  // namespace

Expected<MigLayout> parseMigLayout(const GpuModel& model, std::string_view text) {
  if (!model.mig) return Error::of(phrase(text::kMigNotCapable, model.id));
  const MigGeometry& g = *model.mig;
  MigLayout layout;
  text = trim(text);
  if (text.empty() || text == "-" || text == "empty") return layout;
  for (auto rawToken : split(text, ',')) {
    std::string_view token = trim(rawToken);
    if (token.empty()) return Error::of(phrase(text::kMigEmptyItem, std::string(text)));
    std::string_view rest = token;
    MigInstance inst;
    if (rest.back() == '*') {
      inst.busy = true;
      rest.remove_suffix(1);
    }
    int repeat = 1;
    if (auto x = rest.find('x');
        x != std::string_view::npos && x > 0 && parseInt(rest.substr(0, x))) {
      repeat = *parseInt(rest.substr(0, x));
      if (repeat < 1 || repeat > kMaxMemorySlices)
        return syntaxError(token, phrase(text::kMigRepeat, kMaxMemorySlices));
      rest = rest.substr(x + 1);
    }
    std::string_view cis;
    if (auto open = rest.find('('); open != std::string_view::npos) {
      if (rest.back() != ')') return syntaxError(token, phrase(text::kMigMissingParen));
      cis = rest.substr(open + 1, rest.size() - open - 2);
      rest = rest.substr(0, open);
    }
    std::string_view name = rest;
    if (auto at = rest.find('@'); at != std::string_view::npos) {
      name = rest.substr(0, at);
      auto start = parseInt(rest.substr(at + 1));
      if (!start || *start < 0 || *start >= g.memorySlices)
        return syntaxError(token, phrase(text::kMigStartRange, g.memorySlices - 1));
      if (repeat > 1) return syntaxError(token, phrase(text::kMigRepeatStart));
      inst.start = static_cast<int8_t>(*start);
    }
    const int idx = g.profileIndex(trim(name));
    if (idx < 0)
      return syntaxError(token, phrase(text::kMigUnknownProfile, std::string(trim(name)), model.id,
                                       profileNames(g)));
    inst.profile = static_cast<int8_t>(idx);
    if (cis.data() && cis.empty()) return syntaxError(token, phrase(text::kMigNoCi));
    if (!cis.empty()) {
      auto withCis = parseCis(g, inst, cis, token);
      if (!withCis) return withCis.error();
      inst = *withCis;
      // One CI spanning the whole GI is the default CI: "1g.10gb(1c)" is the same as "1g.10gb".
      const auto& p = g.profiles[static_cast<size_t>(inst.profile)];
      if (inst.ciCount == 1 && inst.ciSlices[0] == p.computeSlices)
        inst.ciCount = 0, inst.ciSlices = {};
    }
    for (int r = 0; r < repeat; ++r)
      if (!layout.add(inst)) return Error::of(phrase(text::kMigTooMany, kMaxMemorySlices));
  }
  return layout;
}

std::string formatMigInstance(const GpuModel& model, const MigInstance& inst, bool withBusy) {
  std::string out = model.mig->profiles[static_cast<size_t>(inst.profile)].name;
  if (inst.placed()) out += "@" + std::to_string(inst.start);
  if (inst.ciCount > 0) {
    out += "(";
    for (int c = 0; c < inst.ciCount; ++c)
      out += (c ? "+" : "") + std::to_string(inst.ciSlices[static_cast<size_t>(c)]) + "c";
    out += ")";
  }
  if (withBusy && inst.busy) out += "*";
  return out;
}

std::string formatMigLayout(const GpuModel& model, const MigLayout& layout, bool withBusy) {
  if (layout.empty()) return "-";
  std::vector<std::string> parts;
  for (const auto& i : layout) parts.push_back(formatMigInstance(model, i, withBusy));
  return join(parts, ",");
}

std::string formatStarts(const MigGeometry& g, uint16_t starts) {
  std::vector<std::string> out;
  for (int s = 0; s < g.memorySlices; ++s)
    if ((starts >> s) & 1u) out.push_back(std::to_string(s));
  return join(out, ",");
}

std::string describeSlices(const MigGeometry& g, const MigInstance& inst) {
  const auto& p = g.profiles[static_cast<size_t>(inst.profile)];
  if (!inst.placed()) return "unplaced";
  if (p.memorySlices == 1) return "slice " + std::to_string(inst.start);
  return "slices " + std::to_string(inst.start) + "-" +
         std::to_string(inst.start + p.memorySlices - 1);
}

}  // namespace tessera
