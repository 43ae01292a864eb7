// SPDX-License-Identifier: Apache-2.0
// The second half of the error rule (problem.hpp has the first): where the run must end, throw
// failure(verdict, line) (fail() below), never return it. A `failure` ends the run with a verdict
// and one line for the operator, built only from the tool's own words, operator input and daemon
// facts, never from anything the script printed; an `interrupted` ends it on a stop request, once
// the container and run directory are gone. They are caught only where an outcome is made: the
// runner API turns them into its result (runner.cpp), the CLI's main into an exit code, a batch
// into its line's verdict; elsewhere a catch only records one and goes on (a cleanup that must
// still run, an optional report) or adds where it happened and throws again.
#pragma once

#include <stdexcept>
#include <string>

#include "plb/sandbox/verdict.hpp"

namespace plb {

class failure : public std::runtime_error {
 public:
  failure(sandbox::verdict v, const std::string& message) : std::runtime_error(message), verdict_(v) {}
  sandbox::verdict verdict() const noexcept { return verdict_; }

 private:
  sandbox::verdict verdict_;
};

[[noreturn]] inline void fail(sandbox::verdict v, const std::string& message) { throw failure(v, message); }

class interrupted : public std::exception {
 public:
  explicit interrupted(int stop_signal) noexcept : signal(stop_signal) {}
  const char* what() const noexcept override { return "stopped on request"; }

  int signal;  // the stop request's reason (a signal number, by convention)
};

}  // namespace plb
