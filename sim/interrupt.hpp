// Interrupted processes (SIGINT, SIGTERM) remove the temporary folders they own, then die of the signal.
//
// A folder is registered for cleanup by the process that created it (sim::TempDir does). The handler
// itself only records the signal, and only in a process that owns registered folders; in any other
// process (a forked replica, which owns nothing) and on a second signal it restores the default action
// and re-raises at once. Loops that wait on children (sim::ProcessPool) poll interrupted(), end their
// children, then call die_if_interrupted(): it removes every registered folder and re-raises the signal
// with its default action, so the process ends "killed by SIGINT/SIGTERM" as its caller expects.
// Folder registrations are per process: a forked child does not inherit its parent's.
#pragma once

#include <filesystem>

namespace dcsim::sim {

/// Installs the SIGINT and SIGTERM handlers (once, early in main).
void install_interrupt_handlers();
/// Installs them again if they were installed (SimGrid's engine installs its own SIGINT handler, which
/// exits with status 1 on a second ^C: sim::Platform calls this once the engine exists).
void reinstall_interrupt_handlers();
/// True once SIGINT or SIGTERM was received by a process that owns registered folders.
bool interrupted();
/// When interrupted: removes this process's registered folders and dies of the signal. Else nothing.
void die_if_interrupted();

void register_cleanup(const std::filesystem::path& dir);
void unregister_cleanup(const std::filesystem::path& dir);

} // namespace dcsim::sim
