// SPDX-License-Identifier: Apache-2.0
// The docker client's stdout and stderr, drained together under one byte cap (the spec: stderr is
// discarded and shares the output cap). stderr is read and dropped, or, when the operator asked for
// the diagnostics file (--keep-stderr), its last bytes kept in a bounded ring (stderr_diagnostics.hpp)
// while the output is under the cap; stdout is kept up to the cap.
// Past the cap nothing more is kept, `on_cap` is called once (the watchdog kills the container),
// and both pipes go on being drained to their end: an undrained client stalls, and `docker rm -f`
// then hangs for minutes.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include <boost/asio.hpp>

#include "plb/sandbox/stderr_diagnostics.hpp"

namespace plb::runner {

class output_drain {
 public:
  // `stderr_tail_bytes` 0: stderr is dropped unread (the spec's default).
  output_drain(std::size_t cap_bytes, std::size_t stderr_tail_bytes, std::function<void()> on_cap)
      : cap_(cap_bytes), on_cap_(std::move(on_cap)), stderr_tail_(tail_of(stderr_tail_bytes)) {}
  output_drain(const output_drain&) = delete;
  output_drain& operator=(const output_drain&) = delete;

  // The cap, when it is known only once the input is (it grows with the rows): before start().
  void set_cap(std::size_t cap_bytes) noexcept { cap_ = cap_bytes; }

  // Reads both pipes on their executor until each ends; the pipes must outlive the reads.
  // What stdout may keep is allocated here, once: grown by doubling, the buffer was copied at each
  // step and held its old half beside the new whole, 1.5 times the cap at its peak (384 MiB a run
  // at the API's 256 MiB bound). Untouched pages cost no memory, so a short answer stays small.
  void start(boost::asio::readable_pipe& out, boost::asio::readable_pipe& err) {
    stdout_.reserve(cap_);
    read(out, true);
    read(err, false);
  }

  std::size_t bytes() const noexcept { return bytes_; }  // all that arrived, both streams
  bool cap_exceeded() const noexcept { return cap_exceeded_; }
  std::string take_stdout() noexcept { return std::move(stdout_); }  // untrusted: parse it, never print it
  // Only when asked for; untrusted: escaped into the operator's diagnostics file, never a message.
  std::optional<sandbox::stderr_tail> take_stderr_tail() noexcept { return std::move(stderr_tail_); }

 private:
  void read(boost::asio::readable_pipe& pipe, bool keep) {
    pipe.async_read_some(boost::asio::buffer(keep ? out_buffer_ : err_buffer_),
                         [this, &pipe, keep](boost::system::error_code e, std::size_t n) {
                           if (n) take(keep, n);
                           if (e) {
                             boost::system::error_code ignore;
                             pipe.close(ignore);
                             return;
                           }
                           read(pipe, keep);
                         });
  }

  void take(bool keep, std::size_t n) {
    bytes_ += n;
    if (bytes_ > cap_) {
      if (!cap_exceeded_) {
        cap_exceeded_ = true;
        std::string().swap(stdout_);  // never used once the cap is passed: its memory goes back
        on_cap_();
      }
      return;  // keep draining, keep nothing
    }
    if (keep) stdout_.append(out_buffer_.data(), n);
    if (!keep && stderr_tail_) stderr_tail_->append(err_buffer_.data(), n);
  }

  // Made in the member list, not emplaced in the constructor's body: GCC 12 at -O2 then warned
  // (-Wmaybe-uninitialized, an error in the Release build) of the optional's unwinding path.
  static std::optional<sandbox::stderr_tail> tail_of(std::size_t bytes) {
    if (bytes == 0) return std::nullopt;
    return sandbox::stderr_tail(bytes);
  }

  std::size_t cap_;
  std::function<void()> on_cap_;
  std::size_t bytes_ = 0;
  bool cap_exceeded_ = false;
  std::string stdout_;
  std::optional<sandbox::stderr_tail> stderr_tail_;
  std::array<char, 65536> out_buffer_{}, err_buffer_{};
};

}  // namespace plb::runner
