#include "service/reservation_views.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "scheduler/engine.h"

namespace tessera {

namespace {

std::vector<ReservationView::NodeHold> holdsOf(const Cluster& c, const Reservation& r) {
  std::map<NodeId, std::vector<int>> byNode;  // NodeId order is cluster order
  for (GpuId g : r.gpus) byNode[c.gpu(g).node].push_back(c.gpu(g).index);
  std::vector<ReservationView::NodeHold> out;
  out.reserve(byNode.size());
  for (auto& [node, gpus] : byNode) {
    std::sort(gpus.begin(), gpus.end());
    out.push_back({c.node(node).name, std::move(gpus)});
  }
  return out;
}

ReservationView viewOf(const Engine& e, const Reservation& r) {
  ReservationView v;
  v.id = r.id;
  v.kind = reservationKindName(r.kind);
  v.job = r.job;
  v.team = r.team;
  if (r.kind == Reservation::Kind::Backfill)
    if (const JobRecord* j = e.job(r.job)) v.team = j->job.team;
  v.start = r.from;
  if (r.until < kForever) v.end = r.until;
  v.nodes = holdsOf(e.cluster(), r);
  return v;
}

}  // namespace

std::vector<ReservationView> reservationViews(const Engine& engine) {
  std::vector<ReservationView> out;
  out.reserve(engine.reservations().all().size());
  for (const Reservation& r : engine.reservations().all()) out.push_back(viewOf(engine, r));
  auto key = [](const ReservationView& v) {
    return std::tuple(v.kind != "backfill", v.start, v.job, v.id);
  };
  std::sort(out.begin(), out.end(),
            [&](const ReservationView& a, const ReservationView& b) { return key(a) < key(b); });
  return out;
}

}  // namespace tessera
