// SPDX-License-Identifier: Apache-2.0
// Everything the plb-sandbox core offers, for vendors who want one include.
#pragma once

#include "plb/sandbox/csv_reader.hpp"
#include "plb/sandbox/digest.hpp"
#include "plb/sandbox/features_encoder.hpp"
#include "plb/sandbox/image_id.hpp"
#include "plb/sandbox/limits.hpp"
#include "plb/sandbox/predictions_parser.hpp"
#include "plb/sandbox/provenance.hpp"
#include "plb/sandbox/sandbox_policy.hpp"
#include "plb/sandbox/task_type.hpp"
#include "plb/sandbox/verdict.hpp"
