// Temporary folders named after their owner process, so that a later process can reclaim them.
//
//   PARENT/PREFIX<pid>-XXXXXX      e.g. $TMPDIR/dcsim-4242-a1B2c3, out/.default.tmp-4242-Zz09aa
//
// A TempDir is removed when it is destroyed (unless released) and when its process is interrupted
// (sim/interrupt.hpp). A process killed with SIGKILL cannot clean up: reclaim_stale_dirs() removes the
// folders whose owner no longer exists (kill(pid, 0) fails with ESRCH) once they have not changed for
// a while (the owner's children, killed with it, may still be writing for a moment).
#pragma once

#include <filesystem>
#include <string>

namespace dcsim::sim {

/// Folders of a dead process are reclaimed once they have not changed for this long.
inline constexpr double RECLAIM_AFTER_S = 60;

/// $TMPDIR, or /tmp when it is unset or empty.
std::filesystem::path temp_root();

class TempDir {
public:
  /// Creates PARENT/PREFIX<pid>-XXXXXX. Throws std::runtime_error naming the folder and the reason.
  TempDir(const std::filesystem::path& parent, const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// The folder is no longer this object's (it was renamed into place): neither removed nor cleaned.
  void release();

private:
  std::filesystem::path path_;
  bool owned_ = true;
};

/// Removes the folders PARENT/PREFIX<pid>-* whose process no longer exists and that were last modified
/// at least `min_age_s` ago. Returns how many were removed; errors are ignored (someone else's folder).
int reclaim_stale_dirs(const std::filesystem::path& parent, const std::string& prefix, double min_age_s);

} // namespace dcsim::sim
