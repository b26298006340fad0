// Interned names: a string stored once per process, referred to by a pointer.
//
// Event records and time-series samples carry names (kinds, components, job and gauge names) that
// repeat hundreds of thousands of times per replica; as std::string each costs 32 bytes plus, past 15
// characters, a heap block. A Name is one pointer into a process-wide pool, so a sample is 32 bytes and
// equal names compare by pointer. Names are never removed (the pool holds what a run names: thousands).
// Not thread-safe: each replica runs in its own process.
#pragma once

#include <ostream>
#include <string>
#include <string_view>

namespace dcsim::sim {

class Name {
public:
  Name();
  Name(std::string_view text);
  Name(const std::string& text) : Name(std::string_view(text)) {}
  Name(const char* text) : Name(std::string_view(text)) {}

  const std::string& str() const { return *text_; }
  operator const std::string&() const { return *text_; }
  bool empty() const { return text_->empty(); }

  friend bool operator==(const Name& a, const Name& b) { return a.text_ == b.text_; }
  friend bool operator==(const Name& a, const char* b) { return *a.text_ == b; }
  friend bool operator==(const Name& a, const std::string& b) { return *a.text_ == b; }
  friend bool operator==(const Name& a, std::string_view b) { return *a.text_ == b; }
  friend std::ostream& operator<<(std::ostream& out, const Name& n) { return out << *n.text_; }

private:
  const std::string* text_;
};

} // namespace dcsim::sim
