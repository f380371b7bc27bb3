#pragma once
// One GPU of a tesserad's cluster snapshot, for end-to-end tests that check what a push changed.
#include <QtTest>

#include <string>

#include "rpc/client.h"

namespace tessera::test {

// The GPU `index` of `node` in GetSnapshot's answer; a failed call or a missing GPU ends the test.
inline v1::SnapshotGpu snapshotGpu(rpc::RemoteSession& c, const std::string& node, uint32_t index) {
  grpc::ClientContext ctx;
  c.prepare(ctx);
  v1::ClusterSnapshot snapshot;
  const grpc::Status st = c.stub().GetSnapshot(&ctx, {}, &snapshot);
  if (!st.ok()) qFatal("GetSnapshot: %s", st.error_message().c_str());
  for (const auto& n : snapshot.nodes())
    if (n.name() == node)
      for (const auto& g : n.gpus())
        if (g.index() == index) return g;
  qFatal("no GPU %s/%u in the snapshot", node.c_str(), index);
}

}  // namespace tessera::test
