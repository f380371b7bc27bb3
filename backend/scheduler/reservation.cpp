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
    : gpuHolds_(cluster.gpus().size()), nodeHolds_(cluster.nodes().size(), 0) {
  gpuNode_.reserve(cluster.gpus().size());
  for (const auto& g : cluster.gpus()) gpuNode_.push_back(g.node);
}

void ReservationBook::add(Reservation r) {
  entries_.push_back(std::move(r));
  const auto index = static_cast<uint32_t>(entries_.size() - 1);
  for (GpuId g : entries_.back().gpus) {
    if (gpuHolds_[g].empty()) ++nodeHolds_[gpuNode_[g]];
    gpuHolds_[g].push_back(index);
  }
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
  std::fill(nodeHolds_.begin(), nodeHolds_.end(), 0);
  auto entries = std::move(entries_);
  entries_.clear();
  for (auto& r : entries) add(std::move(r));
  ++version_;
}

const Reservation* ReservationBook::blocking(GpuId g, const std::string& team, JobId job,
                                             Seconds start, Seconds end) const {
  for (uint32_t i : gpuHolds_[g]) {
    const Reservation& r = entries_[i];
    if (r.kind == Reservation::Kind::Team && r.team == team) continue;
    if (r.kind == Reservation::Kind::Backfill && r.job == job) continue;
    if (start < r.until && r.from < end) return &r;
  }
  return nullptr;
}

bool ReservationBook::usable(GpuId g, const std::string& team, JobId job, Seconds start,
                             Seconds end) const {
  return gpuHolds_[g].empty() || !blocking(g, team, job, start, end);
}

}  // namespace tessera
