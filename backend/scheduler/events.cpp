#include "scheduler/events.h"

#include "core/engine_text.h"

namespace tessera {

const char* eventKindName(EventKind k) {
  switch (k) {
    case EventKind::Submitted:
      return text::kEvSubmitted;
    case EventKind::Admitted:
      return text::kEvAdmitted;
    case EventKind::Started:
      return text::kEvStarted;
    case EventKind::Completed:
      return text::kEvCompleted;
    case EventKind::Failed:
      return text::kEvFailed;
    case EventKind::Cancelled:
      return text::kEvCancelled;
    case EventKind::Preempted:
      return text::kEvPreempted;
    case EventKind::Requeued:
      return text::kEvRequeued;
    case EventKind::Held:
      return text::kEvHeld;
    case EventKind::Released:
      return text::kEvReleased;
    case EventKind::Command:
      return text::kEvCommand;
  }
  return "?";
}

Text eventKindText(EventKind k) {
  return phrase(eventKindName(k));
}

Text historyLine(const Event& e) {
  return phrase(text::kHistoryLine, e.time, eventKindText(e.kind), e.reason);
}

}  // namespace tessera
