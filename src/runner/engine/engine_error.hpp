// SPDX-License-Identifier: Apache-2.0
// The engine layer's one error type (support/problem.hpp lists each layer's): every way a call to
// the Docker Engine fails, from the transport, the typed client and the answers' parsers alike.
#pragma once

#include <cstdint>
#include <string>

#include <boost/assert/source_location.hpp>
#include <boost/system/result.hpp>

namespace plb::runner {

// Every way an Engine call fails, as one type.
struct engine_error {
  enum class kind : std::uint8_t {
    unreachable,        // no answer: the daemon is down, restarting, or the socket is wrong
    unexpected_status,  // an HTTP status the call does not expect
    bad_reply,          // an answer engine_json refused
  };
  kind what = kind::unreachable;
  int status = 0;      // with unexpected_status
  std::string detail;  // what was wrong, in the tool's words
  // With unreachable: the request was sent whole and its answer never came (a read that timed out
  // or broke), so the daemon may have acted on it. A refused connection, or a write that failed,
  // reached nothing.
  bool answer_lost = false;

  std::string message() const;
};

// For result<T, engine_error>::value(): the error leaves as a std::runtime_error with message().
[[noreturn]] void throw_exception_from_error(const engine_error& e, const boost::source_location& where);

template <class T>
using engine_result = boost::system::result<T, engine_error>;

}  // namespace plb::runner
