#include "scheduler/events.h"

namespace tessera {

const char* eventKindName(EventKind k) {
  switch (k) {
    case EventKind::Submitted:
      return "submitted";
    case EventKind::Admitted:
      return "admitted";
    case EventKind::Started:
      return "started";
    case EventKind::Completed:
      return "completed";
    case EventKind::Failed:
      return "failed";
    case EventKind::Cancelled:
      return "cancelled";
    case EventKind::Preempted:
      return "preempted";
    case EventKind::Requeued:
      return "requeued";
    case EventKind::Held:
      return "held";
    case EventKind::Released:
      return "released";
    case EventKind::Command:
      return "command";
  }
  return "?";
}

}  // namespace tessera
