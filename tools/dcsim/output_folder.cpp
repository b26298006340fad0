#include "tools/dcsim/output_folder.hpp"

#include "tools/dcsim/completion.hpp"
#include "tools/dcsim/outputs.hpp"
#include "tools/dcsim/provenance.hpp"
#include "tools/dcsim/runner.hpp"
#include "tools/dcsim/scenario_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dcsim::tools {

namespace fs = std::filesystem;

namespace {

std::string staging_prefix(const fs::path& target) {
  return "." + target.filename().string() + ".tmp-";
}

/// The names complete.json lists, or nullopt when there is no readable marker.
std::optional<std::vector<std::string>> manifest(const fs::path& dir) {
  std::string text;
  if (!read_regular_file(dir / COMPLETE_FILE, MAX_INPUT_BYTES, text).empty()) return std::nullopt;
  const sim::Json marker = sim::Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (marker.is_discarded() || !marker.is_object() || !marker.contains("files") || !marker.at("files").is_array())
    return std::nullopt;
  std::vector<std::string> names;
  for (const auto& f : marker.at("files"))
    if (f.is_object() && f.contains("name") && f.at("name").is_string()) names.push_back(f.at("name").get<std::string>());
  return names;
}

} // namespace

std::string replace_problem(const fs::path& target) {
  std::error_code ec;
  const auto status = fs::symlink_status(target, ec);
  if (ec || status.type() == fs::file_type::not_found) return {};
  if (status.type() == fs::file_type::symlink) return "is a symbolic link: dcsim writes no output through a link";
  if (status.type() != fs::file_type::directory) return "exists and is not a folder";
  // Only what the folder's own manifest (complete.json) lists is dcsim's to replace, plus the files
  // dcsim writes beside it (the marker, run.json, report.html). Without a manifest, only those.
  std::vector<std::string> ours = manifest(target).value_or(std::vector<std::string>{});
  for (const char* name : {COMPLETE_FILE, RUN_FILE, "report.html", sim::TEMP_MARKER_FILE})
    ours.emplace_back(name);
  std::vector<std::string> foreign;
  for (const auto& e : fs::directory_iterator(target, ec)) {
    const std::string name = e.path().filename().string();
    const bool regular = e.symlink_status(ec).type() == fs::file_type::regular;
    if (!regular || std::find(ours.begin(), ours.end(), name) == ours.end()) foreign.push_back(name);
  }
  if (ec) return fmt::format("cannot be read: {}", ec.message());
  if (foreign.empty()) return {};
  std::sort(foreign.begin(), foreign.end());
  std::string list;
  for (std::size_t i = 0; i < foreign.size() && i < 10; ++i)
    list += fmt::format("{}\"{}\"", i ? ", " : "", sim::excerpt(foreign[i], 60));
  if (foreign.size() > 10) list += fmt::format(" and {} more", foreign.size() - 10);
  return fmt::format("holds {}, which {} not listed in its {} as dcsim outputs: dcsim replaces its output "
                     "folder as a whole and deletes nothing it did not write, so move {} or give another folder",
                     list, foreign.size() == 1 ? "is" : "are", COMPLETE_FILE, foreign.size() == 1 ? "it" : "them");
}


void check_writable_folder(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw OutputFolderError(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  try {
    sim::TempDir probe(dir, ".dcsim-probe-");
  } catch (const std::exception& e) {
    throw OutputFolderError(fmt::format("{} is not writable: {}", dir.string(), e.what()));
  }
}

OutputFolder::OutputFolder(const fs::path& target, bool replace) {
  fs::path t = target.lexically_normal();
  if (t.has_relative_path() && t.filename().empty()) t = t.parent_path(); // "out/x/" -> "out/x"
  const std::string leaf = t.filename().string();
  if (leaf.empty() || leaf == "." || leaf == "..")
    throw OutputFolderError(fmt::format("{}: give a folder with a name (it is replaced as a whole)", target.string()));
  target_ = t;
  const fs::path parent = t.has_parent_path() ? t.parent_path() : fs::path(".");
  std::error_code ec;
  if (fs::exists(fs::symlink_status(target_, ec))) {
    if (const std::string why = replace_problem(target_); !why.empty())
      throw OutputFolderError(fmt::format("{}: {}", target_.string(), why));
    if (!replace && !fs::is_empty(target_, ec))
      throw OutputFolderError(fmt::format("{}: holds an earlier run's outputs: give --force to replace them "
                                          "(the whole folder), or another --out",
                                          target_.string()));
  }
  fs::create_directories(parent, ec);
  if (ec) throw OutputFolderError(fmt::format("{}: cannot create {}: {}", target_.string(), parent.string(), ec.message()));
  sim::reclaim_stale_dirs(parent, staging_prefix(target_), sim::RECLAIM_AFTER_S);
  try {
    staging_ = std::make_unique<sim::TempDir>(parent, staging_prefix(target_));
    const mode_t mask = ::umask(0); // the published folder gets the usual permissions, not mkdtemp's 0700
    ::umask(mask);
    ::chmod(staging_->path().c_str(), 0777 & ~mask);
  } catch (const std::exception& e) {
    throw OutputFolderError(fmt::format("{}: cannot write outputs: {}", target_.string(), e.what()));
  }
}

OutputFolder::~OutputFolder() = default;

void OutputFolder::publish() {
  // Every folder that takes a temporary name holds an owner marker until it is gone (a kill at any
  // moment leaves it reclaimable); the published folder's marker is removed once it is in place (a kill
  // before that leaves a marker there, which replace_problem and the completion listing ignore).
  const fs::path staging = staging_->path();
  const fs::path published_marker = target_ / sim::TEMP_MARKER_FILE;
  auto fail = [&](const char* what) {
    throw std::runtime_error(
        fmt::format("{}: cannot rename {} into place ({}): {}", target_.string(), staging.string(), what, std::strerror(errno)));
  };
  std::error_code ignored;
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target_.c_str(), RENAME_NOREPLACE) == 0) {
    staging_->release();
    fs::remove(published_marker, ignored);
    return;
  }
  const bool unsupported = errno == EINVAL || errno == ENOSYS;
  if (!unsupported && errno != EEXIST) fail("rename");
  fs::remove(published_marker, ignored); // a marker left in the earlier run's folder by a killed run
  const int old_lock = sim::plant_owner_marker(target_); // the earlier run, about to take a temporary name
  struct Unlock {
    int fd;
    ~Unlock() {
      if (fd >= 0) ::close(fd);
    }
  } unlock{old_lock};
  if (!unsupported) {
    if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
      fs::remove(published_marker, ignored);
      // The temporary name now holds the earlier run: its completion marker first, so that no part of
      // it left by a kill looks complete.
      fs::remove(staging / COMPLETE_FILE, ignored);
      staging_.reset(); // removes the rest
      return;
    }
    if (errno != EINVAL && errno != ENOSYS) {
      fs::remove(published_marker, ignored);
      fail("exchange");
    }
  }
  // No atomic exchange here: the earlier folder aside first (a kill in between leaves no target, never a mix).
  const fs::path aside = staging.string() + "-old";
  std::error_code ec;
  const bool had_target = fs::exists(target_, ec);
  if (had_target && ::rename(target_.c_str(), aside.c_str()) != 0) fail("rename aside");
  if (::rename(staging.c_str(), target_.c_str()) != 0) fail("rename");
  staging_->release();
  fs::remove(published_marker, ignored);
  if (had_target) {
    fs::remove(aside / COMPLETE_FILE, ec);
    fs::remove_all(aside, ec);
  }
}

} // namespace dcsim::tools
