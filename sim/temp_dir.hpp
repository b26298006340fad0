// Temporary folders and files that never follow a link, never take a guessed name, and are reclaimed
// only when this program provably made them.
//
//   PARENT/PREFIX<pid>-XXXXXX/            e.g. $TMPDIR/dcsim-4242-a1B2c3, out/.default.tmp-4242-Zz09aa
//   PARENT/PREFIX<pid>-XXXXXX/.dcsim.tmp-owner   the owner marker (TEMP_MARKER_FILE)
//
// A TempDir is created by mkdtemp (mode 0700, a fresh name), then holds an owner marker: a file created
// with O_EXCL|O_NOFOLLOW that records "dcsim-temp <pid>" and on which the owner keeps an exclusive
// flock(2) as long as the TempDir lives (forked children inherit the open file, so the lock lasts while
// they may still write). A TempDir is removed when it is destroyed (unless released) and when its
// process is interrupted (sim/interrupt.hpp). A process killed with SIGKILL cannot clean up:
// reclaim_stale_dirs() removes a folder only when it is a real folder (not a link) owned by this user,
// holds a marker that is a regular file owned by this user whose text names the pid in the folder's
// name, its lock can be taken (its owner and the owner's children are gone), and it has not changed for
// a while. The name alone is never enough: another user's or another program's `dcsim-123-x` stays,
// with one exception that loses nothing: a process killed between mkdtemp and writing its marker leaves
// an empty folder (or one holding only an empty marker); when the process its name names no longer
// exists, that folder is removed by unlink and rmdir, which fail on anything not empty.
//
// write_file_atomically() writes a file through a temporary file created with
// O_CREAT|O_EXCL|O_NOFOLLOW under a random name in the target's folder, then renamed over the target:
// a link planted at any name (the temporary or the target) is never written through, and a reader
// never sees a partially written file. The temporary is removed on a failed write and on SIGINT/SIGTERM.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

namespace dcsim::sim {

/// Folders of a dead process are reclaimed once they have not changed for this long.
inline constexpr double RECLAIM_AFTER_S = 60;
/// The owner marker inside every TempDir (its name holds ".tmp-": output listings skip it).
inline constexpr const char* TEMP_MARKER_FILE = ".dcsim.tmp-owner";

/// $TMPDIR, or /tmp when it is unset or empty.
std::filesystem::path temp_root();

class TempDir {
public:
  /// Creates PARENT/PREFIX<pid>-XXXXXX and its owner marker. Throws std::runtime_error naming the
  /// folder and the reason.
  TempDir(const std::filesystem::path& parent, const std::string& prefix);
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  /// The folder is no longer this object's (it was renamed into place): neither removed nor cleaned.
  void release();

private:
  std::filesystem::path path_;
  int lock_fd_ = -1;
  bool owned_ = true;
};

/// Creates this process's owner marker in `dir` (O_EXCL|O_NOFOLLOW) and locks it: a folder about to take
/// a temporary name (an earlier run's outputs being replaced) becomes reclaimable if the process dies
/// before removing it. Returns the locked descriptor (close it once the folder is gone), or -1.
int plant_owner_marker(const std::filesystem::path& dir);

/// Removes the folders PARENT/PREFIX<pid>-* that this program provably left (see above) and that were
/// last modified at least `min_age_s` ago. Returns how many were removed; anything else stays.
int reclaim_stale_dirs(const std::filesystem::path& parent, const std::string& prefix, double min_age_s);

/// Writes `content` to `path` through an O_EXCL|O_NOFOLLOW temporary of a random name in the same
/// folder, renamed over `path` on success. Throws std::runtime_error naming the file and the reason.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

} // namespace dcsim::sim
