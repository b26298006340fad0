// The scenario format described from its key tables (models/scenario.hpp: scenario_key_tables()), the
// single source of allowed keys, types, units, defaults, bounds and choices:
//   - a JSON Schema (draft 2020-12) for editors and external checks: types, bounds (minimum,
//     exclusiveMinimum, ...), enums, defaults, additionalProperties false, required keys. Rules that
//     span keys (exactly one failure rate, model xor step_time_s, jobs fitting the cluster) are beyond
//     it: `dcsim validate` checks those.
//   - the Markdown reference, docs/scenario-reference.md.
#pragma once

#include "sim/json_reader.hpp"

#include <string>

namespace dcsim::tools {

sim::Json scenario_json_schema();
std::string scenario_reference_markdown();

} // namespace dcsim::tools
