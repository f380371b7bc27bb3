#pragma once
// Synchronous calls into the asynchronous session interface, for tests.
#include <future>
#include <variant>

#include "service/backend.h"

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
  if (const auto* e = std::get_if<ApiError>(&r)) qFatal("unexpected error: %s", e->message.c_str());
  return std::get<T>(r);
}

}  // namespace tessera::test
