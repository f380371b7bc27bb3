#include "scheduler/queue_index.h"

#include <algorithm>

namespace tessera {

void QueueIndex::configure(std::vector<bool> teamSlots) {
  teamSlots_ = std::move(teamSlots);
  slots_ = std::min(teamSlots_.size(), kMaxKeys);
  clear();
}

void QueueIndex::clear() {
  built_ = false;
  buckets_.clear();
  stamp_.clear();
  filed_.clear();
  marked_.clear();
  isMarked_.clear();
}

void QueueIndex::mark(uint32_t index) {
  if (!built_) return;  // the first order() files every pending job anyway
  if (index >= isMarked_.size()) isMarked_.resize(index + 1, 0);
  if (isMarked_[index]) return;
  isMarked_[index] = 1;
  marked_.push_back(index);
}

void QueueIndex::remap(const std::vector<uint32_t>& to, uint32_t gone) {
  if (!built_) return;
  const auto moved = [&](uint32_t i) { return i < to.size() ? to[i] : gone; };
  size_t size = 0;
  for (uint32_t t : to)
    if (t != gone) size = std::max<size_t>(size, t + 1);
  std::vector<uint32_t> stamp(size, 0);
  std::vector<uint8_t> filed(size, 0), isMarked(size, 0);
  for (size_t i = 0; i < stamp_.size(); ++i) {
    const uint32_t t = moved(static_cast<uint32_t>(i));
    if (t == gone) continue;
    stamp[t] = stamp_[i];
    filed[t] = filed_[i];
  }
  for (Bucket& b : buckets_) {
    const auto before = b.entries.begin() + static_cast<std::ptrdiff_t>(b.sorted);
    const auto keptSorted = std::count_if(b.entries.begin(), before, [&](const Entry& e) {
      return moved(e.index) != gone && stamp_[e.index] == e.stamp;
    });
    std::erase_if(b.entries, [&](const Entry& e) { return moved(e.index) == gone || !live(e); });
    for (Entry& e : b.entries) e.index = moved(e.index);
    b.sorted = static_cast<size_t>(keptSorted);
    b.stale = 0;
  }
  std::vector<uint32_t> marked;
  for (uint32_t i : marked_)
    if (const uint32_t t = moved(i); t != gone) {
      marked.push_back(t);
      isMarked[t] = 1;
    }
  stamp_ = std::move(stamp);
  filed_ = std::move(filed);
  isMarked_ = std::move(isMarked);
  marked_ = std::move(marked);
}

void QueueIndex::file(const Source& src, uint32_t index) {
  const int team = src.team(index);
  const size_t b = static_cast<size_t>(team + 1);
  if (b >= buckets_.size()) buckets_.resize(b + 1);
  Entry e{src.ownKeys(index), src.id(index), index, stamp_[index]};
  for (size_t p = 0; p < slots_; ++p)
    if (teamSlots_[p]) e.keys[p] = 0;
  buckets_[b].entries.push_back(e);
  filed_[index] = 1;
}

bool QueueIndex::ownLess(const Entry& a, const Entry& b) const {
  for (size_t p = 0; p < slots_; ++p)
    if (a.keys[p] != b.keys[p]) return a.keys[p] < b.keys[p];  // team slots are equal here
  return a.id < b.id;
}

// Drops stale entries once they are half the bucket, and merges what was filed since into the
// sorted run: linear, where sorting the bucket again would not be.
void QueueIndex::tidy(Bucket& b) const {
  if (b.stale * 2 > b.entries.size()) {
    const auto before = b.entries.begin() + static_cast<std::ptrdiff_t>(b.sorted);
    const auto keptSorted =
        std::count_if(b.entries.begin(), before, [&](const Entry& e) { return live(e); });
    std::erase_if(b.entries, [&](const Entry& e) { return !live(e); });
    b.sorted = static_cast<size_t>(keptSorted);
    b.stale = 0;
  }
  if (b.sorted == b.entries.size()) return;
  const auto less = [this](const Entry& x, const Entry& y) { return ownLess(x, y); };
  const auto mid = b.entries.begin() + static_cast<std::ptrdiff_t>(b.sorted);
  std::sort(mid, b.entries.end(), less);
  std::inplace_merge(b.entries.begin(), mid, b.entries.end(), less);
  b.sorted = b.entries.size();
}

std::vector<size_t> QueueIndex::order(const Source& src, const std::function<Keys(int)>& teamKeys) {
  if (stamp_.size() < src.jobCount) {
    stamp_.resize(src.jobCount, 0);
    filed_.resize(src.jobCount, 0);
  }
  if (!built_) {
    for (uint32_t i : src.active())
      if (src.pending(i)) file(src, i);
    built_ = true;
  } else {
    for (uint32_t i : marked_) {
      isMarked_[i] = 0;
      if (filed_[i]) ++buckets_[static_cast<size_t>(src.team(i) + 1)].stale;
      filed_[i] = 0;
      ++stamp_[i];
      if (src.pending(i)) file(src, i);
    }
  }
  marked_.clear();

  std::vector<Keys> teamKey(buckets_.size());
  for (size_t b = 0; b < buckets_.size(); ++b) {
    tidy(buckets_[b]);
    if (!buckets_[b].entries.empty()) teamKey[b] = teamKeys(static_cast<int>(b) - 1);
  }
  // Merge the teams under this cycle's team keys; ties fall to the job id, as in a full sort.
  struct Head {
    size_t bucket, at;
  };
  const auto keyAt = [&](const Head& h, size_t p) {
    return teamSlots_[p] ? teamKey[h.bucket][p] : buckets_[h.bucket].entries[h.at].keys[p];
  };
  const auto after = [&](const Head& x, const Head& y) {  // x goes after y
    for (size_t p = 0; p < slots_; ++p) {
      const double kx = keyAt(x, p), ky = keyAt(y, p);
      if (kx != ky) return kx > ky;
    }
    return buckets_[x.bucket].entries[x.at].id > buckets_[y.bucket].entries[y.at].id;
  };
  const auto nextLive = [&](size_t b, size_t at) {
    const auto& entries = buckets_[b].entries;
    while (at < entries.size() && !live(entries[at])) ++at;
    return at;
  };
  // A heap of the teams' next entries. The team that gave the last entry usually gives the next
  // too (its keys run ahead of the others'), so its head is advanced in place and sifted down:
  // one comparison where a pop and a push would take two walks of the heap.
  std::vector<Head> heads;
  size_t total = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    total += buckets_[b].entries.size();
    if (const size_t at = nextLive(b, 0); at < buckets_[b].entries.size()) heads.push_back({b, at});
  }
  std::make_heap(heads.begin(), heads.end(), after);
  const auto siftDown = [&] {
    size_t i = 0;
    for (;;) {
      const size_t l = 2 * i + 1, r = l + 1;
      size_t least = i;
      if (l < heads.size() && after(heads[least], heads[l])) least = l;
      if (r < heads.size() && after(heads[least], heads[r])) least = r;
      if (least == i) return;
      std::swap(heads[i], heads[least]);
      i = least;
    }
  };
  std::vector<size_t> out;
  out.reserve(total);
  while (!heads.empty()) {
    Head& h = heads.front();
    out.push_back(buckets_[h.bucket].entries[h.at].index);
    h.at = nextLive(h.bucket, h.at + 1);
    if (h.at == buckets_[h.bucket].entries.size()) {  // this team has no more: the last takes
      h = heads.back();                               // its place
      heads.pop_back();
    }
    if (!heads.empty()) siftDown();
  }
  return out;
}

}  // namespace tessera
