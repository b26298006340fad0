// Reading JSON scenarios with located errors.
//
// Parse -> decode -> validate -> build: nothing is built while any problem remains, and every problem
// is reported at once as `FILE: /json/pointer: problem (got VALUE)`. Each spec area declares one
// `KeyTable` (name, type, unit, default, meaning, allowed range or values); the table is at the same time
// the list of allowed keys (unknown keys are errors, with a did-you-mean hint), the source of defaults
// and ranges for decoding, and the source of `dcsim describe` and the generated reference.
//
// Decoding never throws on bad input: getters record a problem and return the default, so decoding goes
// on and finds the other problems too. Programmer errors (asking for a key the table does not declare)
// throw std::logic_error.
//
// Limits (hostile input, issue 13). Documents nest at most MAX_DEPTH levels (checked while parsing, so a
// 50,000-deep document is one located error, not a stack overflow); numbers beyond double range are
// located errors; "(got VALUE)" is rendered without walking or copying more of a value than it shows.
// A key table bounds every number: an INTEGER key without a maximum gets INT_MAX (every count fits the
// `int` it is narrowed to), a duration key (unit h, s, us or ns) without one gets sim::MAX_DURATION_H.
// Such implied limits are named in the message only when a value exceeds them.
#pragma once

#include "sim/units.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcsim::sim {

using Json = nlohmann::json;

enum class ValueType { NUMBER, INTEGER, BOOLEAN, STRING, OBJECT, ARRAY, NUMBER_OR_STRING };
std::string_view type_name(ValueType type);

struct Bounds {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false; ///< true: value must be > min (else >= min)
  bool max_open = false; ///< true: value must be < max (else <= max)
  /// Non-empty: `max` is one of dcsim's limits rather than part of the key's meaning; a message states
  /// the maximum (with this reason) only to a value above it.
  const char* max_reason = nullptr; ///< a string literal (a std::string here trips GCC 12's -Wmaybe-uninitialized)
  bool contains(double v) const;
  std::string describe() const; ///< "> 0", ">= 1", "in [0, 1]", "" when unbounded
  /// What `v` (outside the bounds) must be: describe(), or only the violated side when max is a limit.
  std::string requirement(double v) const;
};
Bounds positive();     ///< > 0
Bounds non_negative(); ///< >= 0
Bounds at_least(double min);
Bounds fraction();     ///< in [0, 1]
Bounds between(double min, double max);
/// `bounds` with dcsim's limit `max` (see Bounds::max_reason).
Bounds limited(Bounds bounds, double max, const char* reason);

/// Deepest nesting of arrays and objects accepted in a document or a --set value.
inline constexpr int MAX_DEPTH = 64;
/// Longest name (scenario, job, failure mode, wave...) accepted.
inline constexpr std::size_t MAX_NAME_CHARS = 64;
/// At most this many problems are listed; the rest are counted.
inline constexpr std::size_t MAX_PROBLEMS_SHOWN = 100;

/// A name's problem, or "" when it is fine: 1 to MAX_NAME_CHARS letters, digits, '_', '.' and '-'.
std::string name_problem(std::string_view name);
/// `text` made a valid name (other characters become '_', cut at MAX_NAME_CHARS; "" becomes "scenario").
std::string sanitised_name(std::string_view text);
/// True when `text` is well-formed UTF-8.
bool valid_utf8(std::string_view text);
/// A short excerpt of untrusted text to quote in a message: at most `limit` characters, printable ASCII
/// only (anything else is shown as '?'), "..." when cut.
std::string excerpt(std::string_view text, std::size_t limit = 60);
/// One allowed key of a JSON object.
struct KeyDef {
  std::string name;
  ValueType type = ValueType::NUMBER;
  std::string unit;         ///< e.g. "h", "s", "Gb/s"; empty when dimensionless
  Json default_value;       ///< null when the key has no constant default
  std::string meaning;
  Bounds bounds;            ///< for NUMBER, INTEGER and the number part of NUMBER_OR_STRING
  std::vector<std::string> choices; ///< allowed strings for STRING and NUMBER_OR_STRING (empty: any string)
  std::string default_note; ///< non-empty: the key may be absent; explains what absence means

  bool required() const { return default_value.is_null() && default_note.empty(); }
  std::string default_text() const; ///< for describe: the constant default, the note, or "required"
};

/// The keys allowed in one kind of object, e.g. "/failures/modes/*".
struct KeyTable {
  /// Adds the implied limits to the keys' bounds (INTEGER keys: int range; durations: MAX_DURATION_H).
  KeyTable(std::string area_, std::string path_, std::string summary_, std::vector<KeyDef> keys_);

  std::string area;    ///< area name for `dcsim describe AREA` ("failures")
  std::string path;    ///< JSON pointer pattern of the object, "*" for array elements
  std::string summary; ///< one line on what the object describes
  std::vector<KeyDef> keys;

  const KeyDef& key(std::string_view name) const; ///< throws std::logic_error when undeclared
  const KeyDef* find(std::string_view name) const;
};

struct Problem {
  std::string pointer; ///< JSON pointer ("" is the document root), or "line L, column C" for syntax errors
  std::string message;
  std::string got;     ///< rendered offending value; empty when there is none
};

/// Collects problems; formats them as `FILE: POINTER: MESSAGE (got VALUE)` (the first MAX_PROBLEMS_SHOWN,
/// then a count of the others; pointers longer than 200 characters are cut).
class Problems {
public:
  void add(std::string pointer, std::string message, const Json* got = nullptr);
  void add_raw(Problem problem) { list_.push_back(std::move(problem)); }
  bool empty() const { return list_.empty(); }
  std::size_t size() const { return list_.size(); }
  const std::vector<Problem>& list() const { return list_; }
  std::string format(std::string_view file) const; ///< one line per problem, each ending in '\n'

private:
  std::vector<Problem> list_;
};

/// Renders a value for "(got VALUE)": compact JSON, cut at 60 characters. Reads only what it shows: a
/// huge array, object or string costs no more than a small one.
std::string render_value(const Json& value);
/// Escapes one reference token for a JSON pointer (RFC 6901: '~' -> "~0", '/' -> "~1").
std::string pointer_token(std::string_view key);

/// Parses JSON text allowing // and /* */ comments. Syntax errors, duplicate keys, nesting deeper than
/// MAX_DEPTH and numbers beyond double range become problems; returns a discarded value on the errors
/// that stop parsing. Never throws on bad text.
Json parse_json_text(std::string_view text, Problems& problems);

/// Reads a command-line value (--set, --vary): JSON when it parses, else std::nullopt (the caller takes
/// the text as a string). JSON that parses but breaks a limit (nesting, a number beyond double range, a
/// duplicate key) sets `error` instead.
std::optional<Json> parse_json_value(std::string_view text, std::string& error);

/// A located view of one JSON object during decoding, bound to its key table.
class Node {
public:
  /// Binds `value` (expected to be an object) at `pointer`; reports a wrong type and unknown keys.
  Node(const Json& value, std::string pointer, const KeyTable& table, Problems& problems);

  const Json& json() const { return *value_; }
  const std::string& pointer() const { return pointer_; }
  const KeyTable& table() const { return *table_; }
  Problems& problems() const { return *problems_; }
  std::string child_pointer(std::string_view key) const { return pointer_ + "/" + pointer_token(key); }
  /// True when the key is present (with any value, even a bad one).
  bool has(std::string_view key) const;
  /// The raw value of a present key (nullptr when absent).
  const Json* raw(std::string_view key) const;

  double number(std::string_view key) const;
  std::optional<double> optional_number(std::string_view key) const;
  std::int64_t integer(std::string_view key) const;
  std::optional<std::int64_t> optional_integer(std::string_view key) const;
  /// integer() narrowed to int; the key's bounds must lie within int's range (else std::logic_error).
  int int32(std::string_view key) const;
  bool boolean(std::string_view key) const;
  std::string string(std::string_view key) const;
  std::optional<std::string> optional_string(std::string_view key) const;
  /// NUMBER_OR_STRING keys: either a number within bounds or one of the choices.
  struct NumberOrWord {
    std::optional<double> number;
    std::string word;
  };
  NumberOrWord number_or_word(std::string_view key) const;
  /// The child object under `key` (an empty object when absent).
  Node object(std::string_view key, const KeyTable& child_table) const;
  /// The elements of the array under `key`, each an object bound to `element_table`.
  std::vector<Node> objects(std::string_view key, const KeyTable& element_table) const;

  /// Reports a problem about `key`'s value (the value is rendered as "got").
  void problem(std::string_view key, std::string message) const;
  /// Reports a problem about this object as a whole.
  void problem_here(std::string message) const;

private:
  const Json* value_;
  std::string pointer_;
  const KeyTable* table_;
  Problems* problems_;

  const Json* lookup(std::string_view key, ValueType expected) const;
  std::optional<double> checked_number(std::string_view key, const Json& v, const KeyDef& def) const;
};

/// Applies a `--set key.path=value` override to a document: the path uses '.' between object keys and
/// array indices (an index one past the end appends); the value is read as JSON when it parses,
/// otherwise as a string. Returns an error message, or an empty string on success. Text that is not
/// UTF-8, a path deeper than MAX_DEPTH and values breaking parse_json_value's limits are errors.
std::string apply_override(Json& document, std::string_view assignment);

} // namespace dcsim::sim
