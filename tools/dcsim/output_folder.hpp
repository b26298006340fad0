// A run's output folder is replaced as a whole, never rewritten in place.
//
//   out/.NAME.tmp-<pid>-XXXXXX/   the outputs are written here (a sim::TempDir, beside the target),
//                                 complete.json last (tools/dcsim/completion.hpp), then
//   out/NAME/                     the folder is renamed into place: renameat2(RENAME_EXCHANGE) swaps it
//                                 with an earlier run's folder in one step, and the old one (now under
//                                 the temporary name) is removed.
// So a run killed at any moment leaves NAME holding either the earlier run's complete outputs or the
// new run's, plus at most a `.NAME.tmp-<pid>-*` folder, which later runs reclaim once its process is
// gone. (On a file system without RENAME_EXCHANGE the old folder is renamed aside first: a kill between
// the two renames leaves NAME absent, never mixed.) Two runs writing the same target each publish a
// complete folder; the last one stays.
//
// The target is checked before anything is simulated: its parent must be writable (the temporary folder
// is created there at once), and an existing target must be a real folder (not a link), empty, or (with
// `replace`, `--force` on the command line) holding only the files its own manifest (complete.json)
// lists plus complete.json, run.json and report.html: it is replaced whole, so no stale report is left
// beside new outputs, and a file dcsim did not write (a notes.txt, a sub-folder) is never deleted: the
// run refuses, naming it. Stale temporary folders are reclaimed only as sim::reclaim_stale_dirs allows
// (an owner marker and its free lock), never by their name: the staging folder holds its TempDir's
// marker, and an earlier run's folder gets one (sim::plant_owner_marker) before it takes the temporary
// name in the exchange, so a kill at any moment leaves only reclaimable folders.
#pragma once

#include "sim/temp_dir.hpp"

#include <filesystem>
#include <memory>
#include <stdexcept>

namespace dcsim::tools {

/// The target cannot be written or replaced (bad input: exit 2).
class OutputFolderError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

class OutputFolder {
public:
  /// Checks `target`, reclaims stale temporary folders of it, creates the parent (if needed) and the
  /// temporary folder. Throws OutputFolderError.
  OutputFolder(const std::filesystem::path& target, bool replace);
  ~OutputFolder();

  /// Where to write the outputs.
  const std::filesystem::path& staging() const { return staging_->path(); }
  const std::filesystem::path& target() const { return target_; }
  /// Renames the staging folder into place (replacing an earlier run's). Throws std::runtime_error.
  void publish();

private:
  std::filesystem::path target_;
  std::unique_ptr<sim::TempDir> staging_;
};

/// Why an existing `target` must not be replaced by a run's outputs, or "" (absent, or holding only
/// files its complete.json lists and the files dcsim writes beside them: complete.json, run.json,
/// report.html). A link, a sub-folder or any other file is named in the message.
std::string replace_problem(const std::filesystem::path& target);

/// Checks that `dir` can hold new files: creates it if needed, then a probe folder in it. Throws
/// OutputFolderError.
void check_writable_folder(const std::filesystem::path& dir);

} // namespace dcsim::tools
