// Test support: run a command line (through /bin/sh) and capture its exit code and output.
#pragma once

#include <filesystem>
#include <string>

namespace dcsim::test {

struct CommandResult {
  int exit_code = -1; ///< the command's exit status; 128 + signal when killed
  std::string output; ///< stdout (and stderr when the command says 2>&1)
};

CommandResult run_shell(const std::string& command);
/// Single-quotes a word for /bin/sh.
std::string shell_quote(const std::string& word);
/// The dcsim binary, quoted.
std::string dcsim_binary();
/// A fresh, empty directory for one test's files under the build tree (DCSIM_TEST_OUTPUT_DIR/name).
std::filesystem::path fresh_test_dir(const std::string& name);
std::string read_text(const std::filesystem::path& path);
/// A path under the source tree (e.g. "scenarios/default.json").
std::string source_path(const std::string& relative);

} // namespace dcsim::test
