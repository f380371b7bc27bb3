#pragma once
// Minimal Expected<T> (std::expected is C++23; we build as C++20 with GCC 12).
#include <cassert>
#include <utility>
#include <variant>

#include "core/error.h"

namespace tessera {

template <class T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}      // NOLINT: implicit by design
  Expected(Error error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  [[nodiscard]] bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & {
    assert(ok());
    return std::get<0>(v_);
  }
  const T& value() const& {
    assert(ok());
    return std::get<0>(v_);
  }
  T&& value() && {
    assert(ok());
    return std::get<0>(std::move(v_));
  }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  [[nodiscard]] const Error& error() const {
    assert(!ok());
    return std::get<1>(v_);
  }

 private:
  std::variant<T, Error> v_;
};

// For operations that produce nothing but may fail.
struct Unit {};
using Status = Expected<Unit>;
inline Status okStatus() {
  return Unit{};
}

// Convenience: returns early with the error of an Expected.
#define TESSERA_TRY(var, expr)                         \
  auto var##_result = (expr);                          \
  if (!var##_result.ok()) return var##_result.error(); \
  auto var = std::move(var##_result).value()

#define TESSERA_CHECK(expr)                                    \
  do {                                                         \
    auto tessera_status_ = (expr);                             \
    if (!tessera_status_.ok()) return tessera_status_.error(); \
  } while (0)

}  // namespace tessera
