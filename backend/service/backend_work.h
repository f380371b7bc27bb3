#pragma once
// The Backend's private pieces shared by its source files (backend.cpp: the engine thread and
// commits; backend_requests.cpp: the session's requests; backend_reports.cpp: report workers).
// A request is an Item applied in a Batch on the engine thread and answered after its commit.
#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/engine_text.h"
#include "service/backend.h"

namespace tessera {

namespace backend_work {

using Clock = std::chrono::steady_clock;

inline ApiError unavailable(const Error& e) {
  return {ErrorKind::Unavailable,
          "the database refused the write, nothing was applied: " + e.str()};
}

// The API status of an engine refusal: the engine said what the refusal is about.
inline ErrorKind classify(const Error& e) {
  switch (e.refusal) {
    case Refusal::NotFound:
      return ErrorKind::NotFound;
    case Refusal::WrongState:
      return ErrorKind::FailedPrecondition;
    case Refusal::BadArgument:
      break;
  }
  return ErrorKind::InvalidArgument;
}

inline ApiError refusal(const Error& e) {
  return {classify(e), e.str(), e.text.empty() ? Text{} : e.sentence()};
}

// NOT_FOUND for a job id neither the engine nor the database knows.
inline ApiError noSuchJob(JobId id) {
  return refusal(Error::notFound(phrase(text::kNoJob, id)));
}

}  // namespace backend_work

struct Backend::Batch {
  bool tick = false;
  std::vector<JobId> dirty;
  bool setupChanged = false;
  std::vector<std::pair<std::string, double>> samples;
  Seconds sampleTime = 0;
  bool compactMetrics = false;
  bool worldChanged = false;  // what the snapshot shows changed outside the engine
  // Agents' readings arrived, and nothing else the views show (BackendConfig::readingsRefresh).
  bool readingsChanged = false;
  // A node joins the cluster model (node_join.h): stored with the batch, then the engine is
  // rebuilt on it as a restart would.
  std::shared_ptr<const Cluster> joining;
  // An operator action was applied: it runs no cycle itself (scheduler/command.h), so one runs
  // right after the batch rather than at the next tick.
  bool acted = false;
};

struct Backend::Item {
  Deadline deadline;
  std::function<void(Backend&, Batch&)> apply;
  std::function<void(const std::optional<Error>&)> finish;  // after the commit
  std::function<void()> expire;                             // deadline passed before apply
};

namespace backend_work {

// A work item whose result is replied after the batch's commit (or replaced by an
// "unavailable" error when that commit fails).
template <typename T, typename Item, typename Work>
std::unique_ptr<Item> makeItem(Deadline d, Reply<T> reply, Work work) {
  auto item = std::make_unique<Item>();
  auto result = std::make_shared<std::optional<std::variant<T, ApiError>>>();
  item->deadline = d;
  item->apply = [result, work = std::move(work)](auto& backend, auto& batch) mutable {
    *result = work(backend, batch);
  };
  item->finish = [result, reply](const std::optional<Error>& commitError) {
    if (commitError)
      reply(unavailable(*commitError));
    else
      reply(std::move(**result));
  };
  item->expire = [reply] {
    reply(ApiError{ErrorKind::DeadlineExceeded,
                   "the deadline passed while the request waited; nothing was applied"});
  };
  return item;
}

}  // namespace backend_work

}  // namespace tessera
