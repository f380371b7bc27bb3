#include "scheduler/reservation.h"

#include <algorithm>

namespace tessera {

const char* reservationKindName(Reservation::Kind k) {
  switch (k) {
    case Reservation::Kind::Maintenance:
      return "maintenance";
    case Reservation::Kind::Team:
      return "team";
    case Reservation::Kind::Backfill:
      return "backfill";
  }
  return "?";
}

ReservationBook::ReservationBook(const Cluster& cluster)
    : gpuHolds_(cluster.gpus().size()),
      nodeHolds_(cluster.nodes().size(), 0),
      nodeHostHolds_(cluster.nodes().size()) {
  gpuNode_.reserve(cluster.gpus().size());
  for (const auto& g : cluster.gpus()) gpuNode_.push_back(g.node);
}

void ReservationBook::add(Reservation r) {
  entries_.push_back(std::move(r));
  const auto index = static_cast<uint32_t>(entries_.size() - 1);
  for (GpuId g : entries_.back().gpus) {
    if (gpuHolds_[g].empty()) ++nodeHolds_[gpuNode_[g]];
    gpuHolds_[g].push_back({entries_.back().from, entries_.back().until, index});
  }
  for (const auto& h : entries_.back().host) nodeHostHolds_[h.node].push_back(index);
  ++version_;
}

bool ReservationBook::remove(const std::string& id) {
  const auto it =
      std::find_if(entries_.begin(), entries_.end(), [&](const auto& r) { return r.id == id; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  reindex();
  return true;
}

void ReservationBook::clearBackfill() {
  const auto before = entries_.size();
  std::erase_if(entries_, [](const auto& r) { return r.kind == Reservation::Kind::Backfill; });
  if (entries_.size() != before) reindex();
}

void ReservationBook::expire(Seconds now) {
  const auto before = entries_.size();
  std::erase_if(entries_, [&](const auto& r) {
    return r.kind != Reservation::Kind::Backfill && r.until <= now;
  });
  if (entries_.size() != before) reindex();
}

const Reservation* ReservationBook::find(const std::string& id) const {
  for (const auto& r : entries_)
    if (r.id == id) return &r;
  return nullptr;
}

void ReservationBook::reindex() {
  for (auto& h : gpuHolds_) h.clear();
  for (auto& h : nodeHostHolds_) h.clear();
  std::fill(nodeHolds_.begin(), nodeHolds_.end(), 0);
  auto entries = std::move(entries_);
  entries_.clear();
  for (auto& r : entries) add(std::move(r));
  ++version_;
}

const Reservation* ReservationBook::blocking(GpuId g, const std::string& team, JobId job,
                                             Seconds start, Seconds end) const {
  for (const GpuHold& h : gpuHolds_[g])
    if (start < h.until && h.from < end && !entries_[h.entry].exempts(team, job))
      return &entries_[h.entry];
  return nullptr;
}

std::pair<int, int64_t> ReservationBook::hostHeld(NodeId n, const std::string& team, JobId job,
                                                  Seconds start, Seconds end) const {
  std::pair<int, int64_t> held{0, 0};
  if (nodeHostHolds_.empty()) return held;
  for (uint32_t i : nodeHostHolds_[n]) {
    const Reservation& r = entries_[i];
    if (r.exempts(team, job) || !(start < r.until && r.from < end)) continue;
    for (const auto& h : r.host)
      if (h.node == n) {
        held.first += h.cpus;
        held.second += h.memoryMiB;
      }
  }
  return held;
}

bool ReservationBook::usable(GpuId g, const std::string& team, JobId job, Seconds start,
                             Seconds end) const {
  return gpuHolds_[g].empty() || !blocking(g, team, job, start, end);
}

}  // namespace tessera
