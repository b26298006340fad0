#include "sim/temp_dir.hpp"

#include "sim/interrupt.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace dcsim::sim {

std::filesystem::path temp_root() {
  const char* base = std::getenv("TMPDIR");
  return base && *base ? std::filesystem::path(base) : std::filesystem::path("/tmp");
}

TempDir::TempDir(const std::filesystem::path& parent, const std::string& prefix) {
  const std::string pattern = (parent / fmt::format("{}{}-XXXXXX", prefix, ::getpid())).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (!::mkdtemp(buffer.data()))
    throw std::runtime_error(fmt::format("cannot create {}: {}", pattern, std::strerror(errno)));
  path_ = buffer.data();
  register_cleanup(path_);
}

TempDir::~TempDir() {
  if (!owned_) return;
  unregister_cleanup(path_);
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void TempDir::release() {
  if (!owned_) return;
  owned_ = false;
  unregister_cleanup(path_);
}

int reclaim_stale_dirs(const std::filesystem::path& parent, const std::string& prefix, double min_age_s) {
  int removed = 0;
  std::error_code ec;
  const auto now = std::chrono::system_clock::now();
  for (const auto& entry : std::filesystem::directory_iterator(parent, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::size_t dash = name.find('-', prefix.size());
    if (dash == std::string::npos || dash == prefix.size() || dash - prefix.size() > 9) continue;
    const std::string digits = name.substr(prefix.size(), dash - prefix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::stol(digits));
    struct stat st {};
    if (pid <= 0 || ::lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    if (::kill(pid, 0) == 0 || errno != ESRCH) continue; // alive (or not ours to probe)
    const double age_s = std::chrono::duration<double>(now - std::chrono::system_clock::from_time_t(st.st_mtim.tv_sec)).count();
    if (age_s < min_age_s) continue;
    std::error_code ignored;
    if (std::filesystem::remove_all(entry.path(), ignored) > 0 && !ignored) ++removed;
  }
  return removed;
}

} // namespace dcsim::sim
