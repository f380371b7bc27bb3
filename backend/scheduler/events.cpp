#include "scheduler/events.h"

#include "core/engine_text.h"

namespace tessera {

// Identifiers: the database's kind column and the API's Event.kind. Fixed, unlike the words the
// console shows (eventKindText), whose English may change for a translation's sake.
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

Text eventKindText(EventKind k) {
  switch (k) {
    case EventKind::Submitted:
      return phrase(text::kEvSubmitted);
    case EventKind::Admitted:
      return phrase(text::kEvAdmitted);
    case EventKind::Started:
      return phrase(text::kEvStarted);
    case EventKind::Completed:
      return phrase(text::kEvCompleted);
    case EventKind::Failed:
      return phrase(text::kEvFailed);
    case EventKind::Cancelled:
      return phrase(text::kEvCancelled);
    case EventKind::Preempted:
      return phrase(text::kEvPreempted);
    case EventKind::Requeued:
      return phrase(text::kEvRequeued);
    case EventKind::Held:
      return phrase(text::kEvHeld);
    case EventKind::Released:
      return phrase(text::kEvReleased);
    case EventKind::Command:
      return phrase(text::kEvCommand);
  }
  return literal(eventKindName(k));
}

Text historyLine(const Event& e) {
  return phrase(text::kHistoryLine, e.time, eventKindText(e.kind), e.reason);
}

}  // namespace tessera
