// Status and Result<T>: the error vocabulary shared by every library of the burst buffer.
//
// A Status is a code plus a message. Codes mirror errno values (0 = OK), so the one place that
// talks to the kernel (the FUSE adapter) maps a Status to errno by taking its code. No library
// lets an exception escape; exceptions from third-party code are caught where they arise and
// become a Status.
//
// Result<T> holds either a T or a non-OK Status. Its member names follow std::expected
// (has_value, value, error, operator*, operator->), so moving to C++23 is a rename.
//
// Thread-safety: value types; distinct objects may be used from distinct threads.
#pragma once

#include <cerrno>
#include <cstdlib>
#include <string>
#include <utility>
#include <variant>

namespace bb {

class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(int code, std::string message) : code_(code), message_(std::move(message)) {}

  static Status Ok() { return Status(); }
  static Status Error(int code, std::string message) { return Status(code, std::move(message)); }

  bool ok() const { return code_ == 0; }
  // The errno this status stands for; 0 when ok().
  int code() const { return code_; }
  const std::string& message() const { return message_; }
  // "<strerror(code)>: <message>", or "OK".
  std::string ToString() const;

  // Prepends context: "<context>: <message>". No-op on OK.
  Status Annotate(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }

 private:
  int code_ = 0;
  std::string message_;
};

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}        // NOLINT: implicit like std::expected
  Result(Status status) : v_(std::move(status)) {  // NOLINT
    if (std::get<Status>(v_).ok()) std::abort();   // an OK status carries no value
  }

  bool has_value() const { return v_.index() == 0; }
  explicit operator bool() const { return has_value(); }

  // REQUIRES: has_value().
  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  // REQUIRES: !has_value().
  const Status& error() const { return std::get<Status>(v_); }
  // OK when a value is held, else the error.
  Status status() const { return has_value() ? Status() : error(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace bb

// Returns the status of `expr` from the enclosing function if it is not OK.
#define BB_RETURN_IF_ERROR(expr)             \
  do {                                       \
    ::bb::Status bb_status_ = (expr);        \
    if (!bb_status_.ok()) return bb_status_; \
  } while (0)

#define BB_CONCAT_INNER_(a, b) a##b
#define BB_CONCAT_(a, b) BB_CONCAT_INNER_(a, b)
// Declares `lhs` from the value of the Result `rexpr`, or returns its error.
#define BB_ASSIGN_OR_RETURN(lhs, rexpr) BB_ASSIGN_OR_RETURN_IMPL_(BB_CONCAT_(bb_result_, __LINE__), lhs, rexpr)
#define BB_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                              \
  if (!tmp.has_value()) return tmp.error();        \
  lhs = std::move(tmp).value()
