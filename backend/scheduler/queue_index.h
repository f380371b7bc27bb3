#pragma once
// The pending queue kept in order between cycles. Sorting 141,000 jobs on every cycle was a
// quarter of the cycle, although a job's own keys (priority, operator rank, submit time) change
// only when it is submitted, requeued or commanded; what moves every cycle are the team keys
// (fair share, DRF). So the jobs are kept per team, sorted by their own keys, and a cycle merges
// the teams under this cycle's team keys: the same order as one sort of every key, in linear time.
//
// The engine marks a job whenever its record may have changed (Engine::touch); a marked job's old
// entry goes stale and, if it is pending, a new one is filed. A policy with a queue-order key
// that is neither the job's own nor its team's is ordered by a full sort instead.
#include <array>
#include <cstdint>
#include <functional>
#include <vector>

#include "core/ids.h"

namespace tessera {

class QueueIndex {
 public:
  static constexpr size_t kMaxKeys = 6;
  using Keys = std::array<double, kMaxKeys>;
  // Key slot p is the job's own (false) or its team's (true).
  void configure(std::vector<bool> teamSlots);

  // Job `index` (of `jobCount`) may have changed: it is filed again by the next order().
  void mark(uint32_t index);
  // Job indexes were renumbered (`to[old]`, kGone for dropped jobs).
  void remap(const std::vector<uint32_t>& to, uint32_t gone);

  struct Source {
    size_t jobCount = 0;
    std::function<bool(uint32_t)> pending;
    std::function<int(uint32_t)> team;  // -1: none
    std::function<JobId(uint32_t)> id;
    std::function<Keys(uint32_t)> ownKeys;                 // team slots may hold anything
    std::function<const std::vector<uint32_t>&()> active;  // candidates for the first build
  };
  // Pending job indexes in queue order; `teamKeys(team)` gives a team's keys (only its team slots
  // are read; team -1 included).
  std::vector<size_t> order(const Source& src, const std::function<Keys(int)>& teamKeys);

  void clear();

 private:
  struct Entry {
    Keys keys;
    JobId id = 0;
    uint32_t index = 0;
    uint32_t stamp = 0;
  };
  struct Bucket {
    std::vector<Entry> entries;
    size_t sorted = 0;  // entries[0, sorted) are in order; the rest were filed since
    size_t stale = 0;
  };
  void file(const Source& src, uint32_t index);
  void tidy(Bucket& b) const;
  [[nodiscard]] bool ownLess(const Entry& a, const Entry& b) const;
  [[nodiscard]] bool live(const Entry& e) const { return stamp_[e.index] == e.stamp; }

  std::vector<bool> teamSlots_;
  size_t slots_ = 0;
  bool built_ = false;
  std::vector<Bucket> buckets_;    // per team index + 1 (0: no team)
  std::vector<uint32_t> stamp_;    // per job index: the stamp of its live entry
  std::vector<uint8_t> filed_;     // per job index: it has a live entry
  std::vector<uint32_t> marked_;   // job indexes to file again
  std::vector<uint8_t> isMarked_;  // per job index
};

}  // namespace tessera
