#include "sim/json_reader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <set>
#include <stdexcept>

namespace dcsim::sim {
namespace {

std::string format_number(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{}", static_cast<long long>(v));
  return fmt::format("{}", v);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

bool is_integral(const Json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && d == std::floor(d);
}

/// Cuts `text` to at most `limit` bytes without splitting a UTF-8 sequence.
std::size_t utf8_cut(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return text.size();
  std::size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
    --cut;
  return cut;
}

void render_string(std::string_view s, std::string& out, std::size_t limit) {
  // Only the part that can show: the rest of a 300,000-character string is never copied.
  const std::string head(s.substr(0, utf8_cut(s, limit + 1)));
  out += Json(head).dump(-1, ' ', false, Json::error_handler_t::replace);
}

/// Compact JSON as Json::dump writes it, stopping once `out` exceeds `limit`: the recursion never goes
/// deeper than the characters written.
void render_bounded(const Json& v, std::string& out, std::size_t limit) {
  if (out.size() > limit) return;
  switch (v.type()) {
  case Json::value_t::object: {
    out += '{';
    bool first = true;
    for (auto it = v.begin(); it != v.end() && out.size() <= limit; ++it) {
      if (!first) out += ',';
      first = false;
      render_string(it.key(), out, limit);
      out += ':';
      render_bounded(it.value(), out, limit);
    }
    out += '}';
    break;
  }
  case Json::value_t::array: {
    out += '[';
    bool first = true;
    for (auto it = v.begin(); it != v.end() && out.size() <= limit; ++it) {
      if (!first) out += ',';
      first = false;
      render_bounded(*it, out, limit);
    }
    out += ']';
    break;
  }
  case Json::value_t::string: render_string(v.get_ref<const std::string&>(), out, limit); break;
  default: out += v.dump(-1, ' ', false, Json::error_handler_t::replace); break;
  }
}

/// Thrown from the parser callback when a document nests deeper than MAX_DEPTH.
struct TooDeep {};

std::string quoted_list(const std::vector<std::string>& words) {
  std::string out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i) out += i + 1 == words.size() ? " or " : ", ";
    out += '"' + words[i] + '"';
  }
  return out;
}

} // namespace

std::string_view type_name(ValueType type) {
  switch (type) {
  case ValueType::NUMBER: return "number";
  case ValueType::INTEGER: return "integer";
  case ValueType::BOOLEAN: return "boolean";
  case ValueType::STRING: return "string";
  case ValueType::OBJECT: return "object";
  case ValueType::ARRAY: return "array";
  case ValueType::NUMBER_OR_STRING: return "number or string";
  }
  return "?";
}

std::string Bounds::requirement(double v) const {
  if (!max_reason) return describe();
  const bool above = max_open ? !(v < max) : !(v <= max);
  if (above && !std::isnan(v))
    return fmt::format("{} {}, {}", max_open ? "<" : "<=", format_number(max), max_reason);
  Bounds lower = *this;
  lower.max = std::numeric_limits<double>::infinity();
  return lower.describe();
}

bool Bounds::contains(double v) const {
  if (std::isnan(v)) return false;
  if (min_open ? !(v > min) : !(v >= min)) return false;
  if (max_open ? !(v < max) : !(v <= max)) return false;
  return true;
}

std::string Bounds::describe() const {
  const bool has_min = std::isfinite(min);
  const bool has_max = std::isfinite(max);
  if (has_min && has_max)
    return fmt::format("in {}{}, {}{}", min_open ? "(" : "[", format_number(min), format_number(max),
                       max_open ? ")" : "]");
  if (has_min) return fmt::format("{} {}", min_open ? ">" : ">=", format_number(min));
  if (has_max) return fmt::format("{} {}", max_open ? "<" : "<=", format_number(max));
  return "";
}

Bounds positive() { return Bounds{0.0, std::numeric_limits<double>::infinity(), true, false}; }
Bounds non_negative() { return Bounds{0.0, std::numeric_limits<double>::infinity(), false, false}; }
Bounds at_least(double min) { return Bounds{min, std::numeric_limits<double>::infinity(), false, false}; }
Bounds fraction() { return Bounds{0.0, 1.0, false, false}; }
Bounds between(double min, double max) { return Bounds{min, max, false, false}; }
Bounds limited(Bounds bounds, double max, const char* reason) {
  bounds.max = max;
  bounds.max_open = false;
  bounds.max_reason = reason;
  return bounds;
}

std::string name_problem(std::string_view name) {
  if (name.empty()) return "must not be empty";
  if (name.size() > MAX_NAME_CHARS) return fmt::format("must be at most {} characters", MAX_NAME_CHARS);
  if (name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
      std::string_view::npos)
    return "must use only letters, digits, '_', '.' and '-'";
  return {};
}

std::string sanitised_name(std::string_view text) {
  std::string out;
  for (char c : text.substr(0, MAX_NAME_CHARS)) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
                    c == '-' || c == '.';
    out += ok ? c : '_';
  }
  if (out.empty()) out = "scenario";
  if (out.front() == '.') out.front() = '_'; // never "." or "..", never hidden
  return out;
}

bool valid_utf8(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t n = 0;
    std::uint32_t cp = 0;
    if (c < 0x80) {
      ++i;
      continue;
    }
    if ((c & 0xE0) == 0xC0) {
      n = 1;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      n = 2;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + n >= text.size()) return false; // truncated sequence
    for (std::size_t k = 1; k <= n; ++k) {
      const auto d = static_cast<unsigned char>(text[i + k]);
      if ((d & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3F);
    }
    static constexpr std::uint32_t MIN_CP[] = {0, 0x80, 0x800, 0x10000};
    if (cp < MIN_CP[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false; // overlong, surrogate
    i += n + 1;
  }
  return true;
}

std::string excerpt(std::string_view text, std::size_t limit) {
  std::string out;
  const bool cut = text.size() > limit;
  for (char c : text.substr(0, cut ? (limit > 3 ? limit - 3 : 0) : text.size()))
    out += c >= 0x20 && c < 0x7F ? c : '?';
  if (cut) out += "...";
  return out;
}

KeyTable::KeyTable(std::string area_, std::string path_, std::string summary_, std::vector<KeyDef> keys_)
    : area(std::move(area_)), path(std::move(path_)), summary(std::move(summary_)), keys(std::move(keys_)) {
  for (KeyDef& k : keys) {
    const bool numeric =
        k.type == ValueType::NUMBER || k.type == ValueType::INTEGER || k.type == ValueType::NUMBER_OR_STRING;
    if (!numeric) continue;
    if (k.type == ValueType::INTEGER) {
      if (!std::isfinite(k.bounds.min)) k.bounds.min = INT_MIN;
      if (!std::isfinite(k.bounds.max)) k.bounds = limited(k.bounds, INT_MAX, "the largest integer dcsim reads");
      continue;
    }
    if (std::isfinite(k.bounds.max)) continue;
    // Durations: every date and duration must fit a Tick with room for sums (sim/units.hpp).
    const char* reason = "dcsim's limit on durations (10^6 h)";
    if (k.unit == "h") k.bounds = limited(k.bounds, MAX_DURATION_H, reason);
    if (k.unit == "s") k.bounds = limited(k.bounds, MAX_DURATION_S, reason);
    if (k.unit == "us") k.bounds = limited(k.bounds, MAX_DURATION_S * 1e6, reason);
    if (k.unit == "ns") k.bounds = limited(k.bounds, MAX_DURATION_S * 1e9, reason);
  }
}

std::string KeyDef::default_text() const {
  if (!default_value.is_null()) return default_value.dump();
  if (!default_note.empty()) return default_note;
  return "required";
}

const KeyDef* KeyTable::find(std::string_view name) const {
  for (const auto& k : keys)
    if (k.name == name) return &k;
  return nullptr;
}

const KeyDef& KeyTable::key(std::string_view name) const {
  if (const KeyDef* k = find(name)) return *k;
  throw std::logic_error(fmt::format("key table {} does not declare \"{}\"", path, name));
}

void Problems::add(std::string pointer, std::string message, const Json* got) {
  list_.push_back(Problem{std::move(pointer), std::move(message), got ? render_value(*got) : std::string{}});
}

std::string Problems::format(std::string_view file) const {
  constexpr std::size_t POINTER_LIMIT = 200;
  std::string out;
  for (std::size_t i = 0; i < list_.size() && i < MAX_PROBLEMS_SHOWN; ++i) {
    const Problem& p = list_[i];
    std::string pointer = p.pointer.empty() ? "/" : p.pointer;
    if (pointer.size() > POINTER_LIMIT) pointer = pointer.substr(0, utf8_cut(pointer, POINTER_LIMIT - 3)) + "...";
    for (char& c : pointer) // a key holding a newline must not start a line of its own
      if ((c >= 0 && c < 0x20) || c == 0x7F) c = '?';
    out += fmt::format("{}: {}: {}", file, pointer, p.message);
    if (!p.got.empty()) out += fmt::format(" (got {})", p.got);
    out += '\n';
  }
  if (list_.size() > MAX_PROBLEMS_SHOWN)
    out += fmt::format("{}: {} more problems not shown\n", file, list_.size() - MAX_PROBLEMS_SHOWN);
  return out;
}

std::string render_value(const Json& value) {
  constexpr std::size_t LIMIT = 60;
  std::string text;
  render_bounded(value, text, LIMIT);
  if (text.size() > LIMIT) text = text.substr(0, utf8_cut(text, LIMIT - 3)) + "...";
  return text;
}

std::string pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

namespace {

/// Builds the document as nlohmann's own SAX DOM builder does, and tracks where it is (for located
/// problems), the keys of every open object (duplicates, which nlohmann would silently merge) and the
/// depth (MAX_DEPTH). A SAX handler, not Json::parse's parser callback: with a callback, nlohmann 3.11
/// rescans the enclosing container at the end of every object and array (to drop discarded values),
/// which made loading quadratic (100,000 empty objects: 26 s; with this handler: 0.05 s).
class LocatingSax {
public:
  LocatingSax(Json& result, Problems& problems) : dom_(result, /*allow_exceptions=*/true), problems_(&problems) {}

  struct Frame {
    bool is_array = false;
    std::size_t index = 0;
    std::string key;
    std::set<std::string> keys;
  };
  std::string path() const {
    std::string p;
    for (const auto& f : frames_)
      p += "/" + (f.is_array ? std::to_string(f.index) : pointer_token(f.key));
    return p;
  }

  bool null() { return value_done(dom_.null()); }
  bool boolean(bool v) { return value_done(dom_.boolean(v)); }
  bool number_integer(Json::number_integer_t v) { return value_done(dom_.number_integer(v)); }
  bool number_unsigned(Json::number_unsigned_t v) { return value_done(dom_.number_unsigned(v)); }
  bool number_float(Json::number_float_t v, const Json::string_t& s) { return value_done(dom_.number_float(v, s)); }
  bool string(Json::string_t& v) { return value_done(dom_.string(v)); }
  bool binary(Json::binary_t& v) { return value_done(dom_.binary(v)); }
  bool start_object(std::size_t n) { return open(false) && dom_.start_object(n); }
  bool start_array(std::size_t n) { return open(true) && dom_.start_array(n); }
  bool end_object() { return close() && dom_.end_object(); }
  bool end_array() { return close() && dom_.end_array(); }
  bool key(Json::string_t& k) {
    Frame& f = frames_.back();
    f.key = k;
    if (!f.keys.insert(k).second) problems_->add(path(), "duplicate key (the later value would win)");
    return dom_.key(k);
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& ex) {
    return dom_.parse_error(position, token, ex); // throws ex
  }

private:
  nlohmann::detail::json_sax_dom_parser<Json> dom_;
  Problems* problems_;
  std::vector<Frame> frames_;

  bool value_done(bool ok) {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
    return ok;
  }
  bool open(bool is_array) {
    if (frames_.size() >= static_cast<std::size_t>(MAX_DEPTH)) throw TooDeep{};
    frames_.push_back(Frame{is_array, 0, {}, {}});
    return true;
  }
  bool close() {
    frames_.pop_back();
    return value_done(true);
  }
};

} // namespace

Json parse_json_text(std::string_view text, Problems& problems) {
  Json result;
  LocatingSax sax(result, problems);
  auto path = [&sax] { return sax.path(); };
  try {
    Json::sax_parse(text.begin(), text.end(), &sax, Json::input_format_t::json, /*strict=*/true,
                    /*ignore_comments=*/true);
    return result;
  } catch (const Json::parse_error& e) {
    std::string what = e.what();
    // "[json.exception.parse_error.101] parse error at line 3, column 7: syntax error while ..."
    const std::string marker = "parse error at ";
    if (auto at = what.find(marker); at != std::string::npos) what = what.substr(at + marker.size());
    std::string location = "line ?, column ?";
    if (auto colon = what.find(": "); colon != std::string::npos && what.rfind("line", 0) == 0) {
      location = what.substr(0, colon);
      what = what.substr(colon + 2);
    }
    problems.add_raw(Problem{location, what, {}});
    return Json(Json::value_t::discarded);
  } catch (const TooDeep&) {
    problems.add_raw(Problem{path(), fmt::format("nested deeper than {} levels of arrays and objects", MAX_DEPTH), {}});
    return Json(Json::value_t::discarded);
  } catch (const Json::out_of_range& e) {
    // "[json.exception.out_of_range.406] number overflow parsing '1e999'": where, from the frames.
    const std::string what = e.what();
    std::string got;
    if (const auto open = what.find('\''); open != std::string::npos)
      got = excerpt(std::string_view(what).substr(open + 1, what.size() - open - 2), 40);
    problems.add_raw(Problem{path(), "number beyond the range of a double (about 1.8e308)", got});
    return Json(Json::value_t::discarded);
  } catch (const Json::exception& e) {
    problems.add_raw(Problem{path(), "cannot read this JSON: " + excerpt(e.what(), 120), {}});
    return Json(Json::value_t::discarded);
  }
}

std::optional<Json> parse_json_value(std::string_view text, std::string& error) {
  Problems problems;
  Json value = parse_json_text(text, problems);
  if (problems.empty()) return value;
  const Problem& first = problems.list().front();
  if (value.is_discarded() && first.pointer.rfind("line ", 0) == 0) return std::nullopt; // not JSON: a string
  error = first.message + (first.got.empty() ? "" : " (got " + first.got + ")");
  return std::nullopt;
}

Node::Node(const Json& value, std::string pointer, const KeyTable& table, Problems& problems)
    : value_(&value), pointer_(std::move(pointer)), table_(&table), problems_(&problems) {
  static const Json EMPTY = Json::object();
  if (!value.is_object()) {
    problems.add(pointer_, "must be an object", &value);
    value_ = &EMPTY;
    return;
  }
  for (const auto& [key, v] : value.items()) {
    if (table.find(key)) continue;
    std::string best;
    std::size_t best_distance = 3; // suggest only close names
    for (const auto& k : table.keys) {
      const std::size_t length_gap = key.size() > k.name.size() ? key.size() - k.name.size() : k.name.size() - key.size();
      if (length_gap >= best_distance) continue; // the distance is at least the gap: skip long keys cheaply
      const std::size_t d = edit_distance(key, k.name);
      if (d < best_distance) {
        best_distance = d;
        best = k.name;
      }
    }
    std::string message = "unknown key";
    if (!best.empty())
      message += fmt::format("; did you mean \"{}\"?", best);
    else {
      std::vector<std::string> names;
      for (const auto& k : table.keys)
        names.push_back(k.name);
      message += "; allowed keys here: " + fmt::format("{}", fmt::join(names, ", "));
    }
    problems.add(child_pointer(key), message, &v);
  }
}

bool Node::has(std::string_view key) const { return raw(key) != nullptr; }

const Json* Node::raw(std::string_view key) const {
  auto it = value_->find(key);
  return it == value_->end() ? nullptr : &*it;
}

void Node::problem(std::string_view key, std::string message) const {
  problems_->add(child_pointer(key), std::move(message), raw(key));
}

void Node::problem_here(std::string message) const { problems_->add(pointer_, std::move(message)); }

const Json* Node::lookup(std::string_view key, ValueType expected) const {
  const KeyDef& def = table_->key(key);
  if (def.type != expected)
    throw std::logic_error(fmt::format("{}: key \"{}\" is declared as {}, read as {}", table_->path, key,
                                       type_name(def.type), type_name(expected)));
  const Json* v = raw(key);
  if (!v && def.required()) problems_->add(child_pointer(key), "missing required key");
  return v;
}

std::optional<double> Node::checked_number(std::string_view key, const Json& v, const KeyDef& def) const {
  if (!v.is_number()) {
    problem(key, def.type == ValueType::INTEGER ? "must be an integer" : "must be a number");
    return std::nullopt;
  }
  if (def.type == ValueType::INTEGER && !is_integral(v)) {
    problem(key, "must be an integer");
    return std::nullopt;
  }
  const double d = v.get<double>();
  if (!def.bounds.contains(d)) {
    problem(key, "must be " + def.bounds.requirement(d));
    return std::nullopt;
  }
  return d;
}

std::optional<double> Node::optional_number(std::string_view key) const {
  const KeyDef& def = table_->key(key);
  const Json* v = lookup(key, ValueType::NUMBER);
  if (!v) return def.default_value.is_number() ? std::optional<double>(def.default_value.get<double>()) : std::nullopt;
  return checked_number(key, *v, def);
}

double Node::number(std::string_view key) const {
  const KeyDef& def = table_->key(key);
  if (auto v = optional_number(key)) return *v;
  return def.default_value.is_number() ? def.default_value.get<double>() : 0.0;
}

std::optional<std::int64_t> Node::optional_integer(std::string_view key) const {
  const KeyDef& def = table_->key(key);
  const Json* v = lookup(key, ValueType::INTEGER);
  if (!v)
    return def.default_value.is_number() ? std::optional<std::int64_t>(def.default_value.get<std::int64_t>())
                                         : std::nullopt;
  auto d = checked_number(key, *v, def);
  if (!d) return std::nullopt;
  if (std::fabs(*d) > 9.0e15) { // beyond 2^53 a double no longer holds every integer
    problem(key, "is too large");
    return std::nullopt;
  }
  return static_cast<std::int64_t>(*d);
}

int Node::int32(std::string_view key) const {
  const KeyDef& def = table_->key(key);
  if (def.bounds.min < INT_MIN || def.bounds.max > INT_MAX)
    throw std::logic_error(fmt::format("{}: key \"{}\" is read as an int but its bounds exceed int", table_->path, key));
  return static_cast<int>(integer(key));
}

std::int64_t Node::integer(std::string_view key) const {
  const KeyDef& def = table_->key(key);
  if (auto v = optional_integer(key)) return *v;
  return def.default_value.is_number() ? def.default_value.get<std::int64_t>() : 0;
}

bool Node::boolean(std::string_view key) const {
  const KeyDef& def = table_->key(key);
  const bool fallback = def.default_value.is_boolean() && def.default_value.get<bool>();
  const Json* v = lookup(key, ValueType::BOOLEAN);
  if (!v) return fallback;
  if (!v->is_boolean()) {
    problem(key, "must be true or false");
    return fallback;
  }
  return v->get<bool>();
}

std::optional<std::string> Node::optional_string(std::string_view key) const {
  const KeyDef& def = table_->key(key);
  const Json* v = lookup(key, ValueType::STRING);
  if (!v) return def.default_value.is_string() ? std::optional<std::string>(def.default_value.get<std::string>())
                                               : std::nullopt;
  if (!v->is_string()) {
    problem(key, def.choices.empty() ? "must be a string" : "must be one of " + quoted_list(def.choices));
    return std::nullopt;
  }
  std::string s = v->get<std::string>();
  if (!def.choices.empty() && std::find(def.choices.begin(), def.choices.end(), s) == def.choices.end()) {
    problem(key, "must be one of " + quoted_list(def.choices));
    return std::nullopt;
  }
  return s;
}

std::string Node::string(std::string_view key) const {
  const KeyDef& def = table_->key(key);
  if (auto v = optional_string(key)) return *v;
  return def.default_value.is_string() ? def.default_value.get<std::string>() : std::string{};
}

Node::NumberOrWord Node::number_or_word(std::string_view key) const {
  const KeyDef& def = table_->key(key);
  const Json* v = lookup(key, ValueType::NUMBER_OR_STRING);
  const Json& value = v ? *v : def.default_value;
  NumberOrWord out;
  if (value.is_string()) {
    out.word = value.get<std::string>();
    if (std::find(def.choices.begin(), def.choices.end(), out.word) == def.choices.end()) {
      problem(key, fmt::format("must be a number {} or {}", def.bounds.requirement(std::nan("")), quoted_list(def.choices)));
      out.word.clear();
    }
    return out;
  }
  if (value.is_number()) {
    const double d = value.get<double>();
    if (def.bounds.contains(d))
      out.number = d;
    else
      problem(key, fmt::format("must be a number {} or {}", def.bounds.requirement(d), quoted_list(def.choices)));
    return out;
  }
  if (v) problem(key, fmt::format("must be a number {} or {}", def.bounds.requirement(std::nan("")), quoted_list(def.choices)));
  return out;
}

Node Node::object(std::string_view key, const KeyTable& child_table) const {
  static const Json EMPTY = Json::object();
  const Json* v = lookup(key, ValueType::OBJECT);
  return Node(v ? *v : EMPTY, child_pointer(key), child_table, *problems_);
}

std::vector<Node> Node::objects(std::string_view key, const KeyTable& element_table) const {
  std::vector<Node> out;
  const Json* v = lookup(key, ValueType::ARRAY);
  if (!v) return out;
  if (!v->is_array()) {
    problem(key, "must be an array");
    return out;
  }
  for (std::size_t i = 0; i < v->size(); ++i)
    out.emplace_back((*v)[i], child_pointer(key) + "/" + std::to_string(i), element_table, *problems_);
  return out;
}

std::string apply_override(Json& document, std::string_view assignment) {
  if (!valid_utf8(assignment)) return "--set: the argument is not valid UTF-8";
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return fmt::format("--set {}: expected key.path=value", excerpt(assignment));
  const std::string path(assignment.substr(0, eq));
  const std::string shown = excerpt(path); // paths are quoted short: the whole path may be megabytes
  const std::string text(assignment.substr(eq + 1));
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const auto dot = path.find('.', start);
    parts.push_back(path.substr(start, dot == std::string::npos ? std::string::npos : dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (parts.size() > static_cast<std::size_t>(MAX_DEPTH))
    return fmt::format("--set {}: the path is deeper than {} keys", shown, MAX_DEPTH);
  std::string error;
  std::optional<Json> parsed = parse_json_value(text, error);
  if (!error.empty()) return fmt::format("--set {}: {}", shown, error);
  Json* node = &document;
  std::string where;
  auto at = [&where] { return where.empty() ? std::string("/") : excerpt(where); };
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const std::string& part = parts[i];
    if (part.empty()) return fmt::format("--set {}: empty key in path", shown);
    const bool last = i + 1 == parts.size();
    if (node->is_array()) {
      if (part.find_first_not_of("0123456789") != std::string::npos)
        return fmt::format("--set {}: {} is an array; \"{}\" is not an index", shown, at(), excerpt(part));
      std::size_t index = 0;
      const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), index);
      if (ec != std::errc() || end != part.data() + part.size() || index > node->size())
        return fmt::format("--set {}: {} has {} elements; there is no element {}", shown, at(), node->size(),
                           excerpt(part, 24));
      if (index == node->size()) node->push_back(last ? Json() : Json::object()); // one past the end appends
      node = &(*node)[index];
    } else {
      if (node->is_null()) *node = Json::object();
      if (!node->is_object())
        return fmt::format("--set {}: {} is not an object", shown, at());
      node = &(*node)[part];
    }
    where += "/" + pointer_token(part);
    if (last) *node = parsed ? std::move(*parsed) : Json(text);
  }
  return {};
}

} // namespace dcsim::sim
