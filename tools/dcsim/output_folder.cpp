#include "tools/dcsim/output_folder.hpp"

#include "tools/dcsim/completion.hpp"
#include "tools/dcsim/outputs.hpp"
#include "tools/dcsim/provenance.hpp"
#include "tools/dcsim/runner.hpp"

#include <fmt/format.h>

#include <algorithm>
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

/// Why an existing `target` must not be replaced, or "".
std::string not_replaceable(const fs::path& target) {
  std::error_code ec;
  if (!fs::is_directory(target, ec)) return "exists and is not a folder";
  if (fs::exists(target / COMPLETE_FILE, ec)) return {};
  std::vector<std::string> known = {SCENARIO_DOCUMENT_FILE, COMPLETE_FILE, RUN_FILE, "report.html"};
  for (const sim::CsvSchema* schema : {&summary_schema(), &replicas_schema(), &ledger_schema(), &causes_schema(),
                                       &events_schema(), &timeseries_schema(), &racks_schema()})
    known.push_back(schema->name);
  for (const auto& e : fs::directory_iterator(target, ec)) {
    const std::string name = e.path().filename().string();
    const bool ours = e.is_regular_file() && (std::find(known.begin(), known.end(), name) != known.end() ||
                                              name.find(".tmp-") != std::string::npos);
    if (!ours)
      return fmt::format("holds \"{}\", which is not a dcsim output: dcsim replaces its output folder as a "
                         "whole, so give a new folder or an earlier run's",
                         name);
  }
  if (ec) return fmt::format("cannot be read: {}", ec.message());
  return {};
}

} // namespace

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
  if (fs::exists(target_, ec)) {
    if (const std::string why = not_replaceable(target_); !why.empty())
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
  const fs::path staging = staging_->path();
  auto fail = [&](const char* what) {
    throw std::runtime_error(
        fmt::format("{}: cannot rename {} into place ({}): {}", target_.string(), staging.string(), what, std::strerror(errno)));
  };
  if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target_.c_str(), RENAME_NOREPLACE) == 0) {
    staging_->release();
    return;
  }
  const bool unsupported = errno == EINVAL || errno == ENOSYS;
  if (!unsupported && errno != EEXIST) fail("rename");
  if (!unsupported) {
    if (::renameat2(AT_FDCWD, staging.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
      std::error_code ignored; // now holds the earlier run: its marker first, so that no part of it
      std::filesystem::remove(staging / COMPLETE_FILE, ignored); // left by a kill looks complete
      staging_.reset(); // removes the rest
      return;
    }
    if (errno != EINVAL && errno != ENOSYS) fail("exchange");
  }
  // No atomic exchange here: the earlier folder aside first (a kill in between leaves no target, never a mix).
  const fs::path aside = staging.string() + "-old";
  std::error_code ec;
  const bool had_target = fs::exists(target_, ec);
  if (had_target && ::rename(target_.c_str(), aside.c_str()) != 0) fail("rename aside");
  if (::rename(staging.c_str(), target_.c_str()) != 0) fail("rename");
  staging_->release();
  if (had_target) {
    fs::remove(aside / COMPLETE_FILE, ec);
    fs::remove_all(aside, ec);
  }
}

} // namespace dcsim::tools
