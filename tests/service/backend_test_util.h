#pragma once
// Synchronous calls into the asynchronous session interface (Backend or RemoteSession), for tests.
#include <future>
#include <variant>

#include "service/session.h"

namespace tessera::test {

template <typename T, typename Call>
std::variant<T, ApiError> await(Call&& call) {
  std::promise<std::variant<T, ApiError>> p;
  auto f = p.get_future();
  call([&p](std::variant<T, ApiError> r) { p.set_value(std::move(r)); });
  return f.get();
}

template <typename T>
const T& ok(const std::variant<T, ApiError>& r) {
  if (const auto* e = std::get_if<ApiError>(&r))
    qFatal("unexpected error (%s): %s", errorKindName(e->kind), e->message.c_str());
  return std::get<T>(r);
}

template <typename T>
ErrorKind kindOf(const std::variant<T, ApiError>& r) {
  if (!std::holds_alternative<ApiError>(r)) return ErrorKind::Internal;
  return std::get<ApiError>(r).kind;
}

}  // namespace tessera::test
