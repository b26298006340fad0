#include "sim/temp_dir.hpp"

#include "sim/interrupt.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <random>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dcsim::sim {

namespace {

std::string marker_text(pid_t pid) { return fmt::format("dcsim-temp {}\n", pid); }

/// A fresh random suffix for a temporary name (never a guessable one).
std::string random_suffix() {
  static thread_local std::mt19937_64 engine{std::random_device{}() ^
                                             (static_cast<std::uint64_t>(::getpid()) << 32)};
  static constexpr char ALPHABET[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::string out;
  for (int i = 0; i < 12; ++i)
    out += ALPHABET[engine() % (sizeof ALPHABET - 1)];
  return out;
}

/// Reads at most 64 bytes of a regular file owned by this user, without following a link; "" otherwise.
std::string read_own_marker(const std::filesystem::path& path, int& fd_out) {
  fd_out = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_out < 0) return {};
  struct stat st {};
  char buffer[64];
  ssize_t n = -1;
  if (::fstat(fd_out, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::geteuid())
    n = ::read(fd_out, buffer, sizeof buffer);
  return n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : std::string();
}

/// A process killed between mkdtemp and its marker's text leaves a folder that is empty, or holds only an
/// empty marker. Such a folder of a process that no longer exists is removed with unlink and rmdir,
/// which cannot remove anything but an empty marker and an empty folder: nothing anyone wrote is lost.
bool abandoned_before_its_marker(const std::filesystem::path& dir, const std::string& pid_digits) {
  const pid_t pid = static_cast<pid_t>(std::stol(pid_digits));
  if (pid <= 0 || ::kill(pid, 0) == 0 || errno != ESRCH) return false; // alive, or not ours to ask
  const std::filesystem::path marker = dir / TEMP_MARKER_FILE;
  struct stat st {};
  if (::lstat(marker.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || st.st_size != 0) return false;
    std::error_code ec;
    const auto entries = std::distance(std::filesystem::directory_iterator(dir, ec), {});
    if (ec || entries != 1) return false; // something beside the marker: not an abandoned start
    if (::unlink(marker.c_str()) != 0) return false;
  }
  return ::rmdir(dir.c_str()) == 0; // fails, and removes nothing, unless the folder is empty
}

} // namespace


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
  lock_fd_ = plant_owner_marker(path_);
  if (lock_fd_ < 0) {
    const std::string why = std::strerror(errno);
    unregister_cleanup(path_);
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
    throw std::runtime_error(fmt::format("cannot create {}: {}", (path_ / TEMP_MARKER_FILE).string(), why));
  }
}

int plant_owner_marker(const std::filesystem::path& dir) {
  const std::string marker = (dir / TEMP_MARKER_FILE).string();
  const int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  const std::string text = marker_text(::getpid());
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0 || ::write(fd, text.data(), text.size()) != static_cast<ssize_t>(text.size())) {
    const int saved = errno;
    ::close(fd);
    ::unlink(marker.c_str());
    errno = saved;
    return -1;
  }
  return fd;
}

TempDir::~TempDir() {
  if (owned_) {
    owned_ = false;
    unregister_cleanup(path_);
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  if (lock_fd_ >= 0) ::close(lock_fd_);
  lock_fd_ = -1;
}

void TempDir::release() {
  if (!owned_) return;
  owned_ = false;
  unregister_cleanup(path_);
  if (lock_fd_ >= 0) ::close(lock_fd_);
  lock_fd_ = -1;
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
    struct stat st {};
    if (::lstat(entry.path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid()) continue;
    int fd = -1;
    const std::string text = read_own_marker(entry.path() / TEMP_MARKER_FILE, fd);
    // The marker names the owner, and its lock is free: the owner and every child it forked are gone.
    const bool ours = text == marker_text(static_cast<pid_t>(std::stol(digits))) && ::flock(fd, LOCK_EX | LOCK_NB) == 0;
    const double age_s = std::chrono::duration<double>(now - std::chrono::system_clock::from_time_t(st.st_mtim.tv_sec)).count();
    if (ours && age_s >= min_age_s) {
      std::error_code ignored;
      if (std::filesystem::remove_all(entry.path(), ignored) > 0 && !ignored) ++removed;
    } else if (!ours && text.empty() && age_s >= min_age_s && abandoned_before_its_marker(entry.path(), digits)) {
      ++removed;
    }
    if (fd >= 0) ::close(fd);
  }
  return removed;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  std::filesystem::path tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = folder / fmt::format(".{}.tmp-{}-{}", path.filename().string(), ::getpid(), random_suffix());
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) throw std::runtime_error(fmt::format("{}: cannot create a temporary file: {}", path.string(), std::strerror(errno)));
  register_cleanup(tmp);
  std::size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  const int write_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (written != content.size() || !closed || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(written != content.size() ? write_errno : errno);
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    unregister_cleanup(tmp);
    die_if_interrupted();
    throw std::runtime_error(fmt::format("{}: write failed: {}", path.string(), why));
  }
  unregister_cleanup(tmp);
  die_if_interrupted(); // a signal that came while the temporary existed ends the process now
}

} // namespace dcsim::sim
