// SPDX-License-Identifier: Apache-2.0
// The warden's and its supervisor's log: one line per event on stderr (a file ci/host/daemonize
// appends to, or systemd's journal), written so that a failed write silences nothing after it.
#pragma once

#include <cstdint>
#include <string>

namespace plb::cli {

// "<UTC time> plb-sandbox warden: <text>\n", one write(2) on descriptor 2. Never std::cerr: its
// error state is sticky, and one failed write (a full disk) silenced every line after it (issue 41
// item 6). A line the log refuses waits, whole, in a backlog of at most 64 KiB (past it, lines are
// dropped and counted) and goes out before the next line, or at the next retry_log(); once the log
// takes lines again, one line says how many were held back and dropped.
void log_line(const std::string& text);

// Writes what the backlog holds, if anything (the warden calls it once a pass).
void retry_log();

// Lines the log refused when they were logged (held back, or dropped): the status line's log-failed.
std::uint64_t log_lines_failed() noexcept;

}  // namespace plb::cli
