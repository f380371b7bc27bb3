#pragma once
// `tessera top`: the terminal console's program loop. It opens the embedded demo or connects to
// a tesserad, takes over the terminal, and then waits on three things at once: keys, the
// session's "something changed" pushes and the terminal's resize signal. Data is re-read on a
// push, at most every 2 s (and every 10 s without one, for telemetry that raises no event);
// keys redraw at once from what is already there.
#include <iosfwd>
#include <optional>
#include <string>

#include "colors.h"
#include "rpc/client.h"
#include "state.h"

namespace tessera {
class Cluster;
class GpuCatalog;
struct Workload;
}  // namespace tessera

namespace tessera::tui {

struct TopOptions {
  bool demo = false;              // the embedded demo instead of a tesserad
  rpc::ClientOptions remote;      // where tesserad is (ctl's settings)
  std::shared_ptr<const Cluster> demoCluster;
  const Workload* demoWorkload = nullptr;
  const GpuCatalog* catalog = nullptr;
  bool readonly = false;
  std::optional<ColorMode> color;  // empty: detected
  std::optional<bool> unicode;     // empty: from the locale and $TERM
  View startView = View::Jobs;
};

// Runs until the operator quits; the exit code (0, or 3 when the server cannot be reached).
int runTop(const TopOptions& options, std::ostream& err);

}  // namespace tessera::tui
