// SPDX-License-Identifier: Apache-2.0
// write_limit_csv FILE: the limit-size input (500,000 rows x 2 selected features) for ci/bench/bench-e2e.
#include <cstdio>
#include <fstream>

#include "limit_inputs.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_limit_csv FILE\n");
    return 2;
  }
  std::ofstream(argv[1], std::ios::binary) << plb::bench::limit_csv();
  return 0;
}
