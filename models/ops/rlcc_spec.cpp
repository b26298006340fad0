#include "models/ops/rlcc_spec.hpp"

#include "models/hardware/spec.hpp"

#include <set>

namespace dcsim::ops {

using sim::Json;
using sim::KeyDef;
using sim::KeyTable;
using sim::ValueType;

// clang-format off
const KeyTable& rlcc_keys() {
  static const KeyTable table{
      "rlcc", "/rlcc", "rack lifecycle controller: stages of rack workflows and planned maintenance waves",
      {
          KeyDef{"isolate_s", ValueType::NUMBER, "s", 600.0, "close a branch's valves and drain its coolant (estimate)",
                 sim::non_negative()},
          KeyDef{"refill_s", ValueType::NUMBER, "s", 1800.0, "refill a branch, purge air, leak test (estimate)",
                 sim::non_negative()},
          KeyDef{"burn_in_s", ValueType::NUMBER, "s", 1800.0,
                 "health checks before racks return to service, also after an emergency shutdown (estimate)",
                 sim::non_negative()},
          KeyDef{"waves", ValueType::ARRAY, "", Json::array(), "planned maintenance rolled over the racks (see /rlcc/waves/*)"},
      }};
  return table;
}
// clang-format on

// clang-format off
const KeyTable& wave_keys() {
  static const KeyTable table{
      "rlcc", "/rlcc/waves/*", "one maintenance wave: planned work rolled rack by rack at a cadence",
      {
          KeyDef{"name", ValueType::STRING, "", nullptr, "identifier used in events.csv (letters, digits, _ . -)"},
          KeyDef{"start_h", ValueType::NUMBER, "h", 0.0, "first step", sim::non_negative()},
          KeyDef{"every_h", ValueType::NUMBER, "h", nullptr, "cadence: time between steps", sim::positive()},
          KeyDef{"racks_per_step", ValueType::INTEGER, "", 1, "racks taken out of service per step", hardware::gpu_count(1)},
          KeyDef{"racks", ValueType::INTEGER, "", nullptr, "racks covered, from rack 0", hardware::gpu_count(1), {},
                 "every rack"},
          KeyDef{"service_h", ValueType::NUMBER, "h", nullptr, "the work on each step's racks", sim::non_negative()},
          KeyDef{"coolant", ValueType::BOOLEAN, "", false,
                 "work on the coolant side: isolate and refill stages; whole loops under isolation \"loop\""},
      }};
  return table;
}
// clang-format on

RlccSpec decode_rlcc(const sim::Node& n) {
  RlccSpec s;
  s.isolate_s = n.number("isolate_s");
  s.refill_s = n.number("refill_s");
  s.burn_in_s = n.number("burn_in_s");
  std::set<std::string> names;
  for (const sim::Node& w : n.objects("waves", wave_keys())) {
    WaveSpec wave;
    wave.name = w.string("name");
    if (w.has("name")) {
      if (wave.name.empty() ||
          wave.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
              std::string::npos)
        w.problem("name", "must be non-empty and use only letters, digits, '_', '.' and '-'");
      else if (wave.name.size() > sim::MAX_NAME_CHARS)
        w.problem("name", sim::name_problem(wave.name));
      else if (!names.insert(wave.name).second)
        w.problem("name", "duplicate wave name");
    }
    wave.start_h = w.number("start_h");
    wave.every_h = w.number("every_h");
    wave.racks_per_step = w.int32("racks_per_step");
    wave.racks = static_cast<int>(w.optional_integer("racks").value_or(0));
    wave.service_h = w.number("service_h");
    wave.coolant = w.boolean("coolant");
    s.waves.push_back(wave);
  }
  return s;
}

} // namespace dcsim::ops
