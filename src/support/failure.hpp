// How the tool's units report a run-ending problem: a verdict class and one line for the operator.
// The line is built only from the tool's own words, operator input and daemon facts, never from
// anything the script printed.
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

}  // namespace plb
