// `dcsim describe [AREA]`: every scenario key with its type, unit, default and meaning.
#pragma once

#include <string>

namespace dcsim::tools {

/// The key reference for one area ("" = all). Returns false (and leaves `out` with the error) when the
/// area does not exist.
bool describe_keys(const std::string& area, std::string& out);

} // namespace dcsim::tools
