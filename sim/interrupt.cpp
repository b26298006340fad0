#include "sim/interrupt.hpp"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <system_error>
#include <vector>

#include <unistd.h>

namespace dcsim::sim {
namespace {

volatile std::sig_atomic_t g_signal = 0;
bool g_installed = false;
std::atomic<pid_t> g_owner{0}; ///< the process whose folders the registry holds (0: none)
static_assert(std::atomic<pid_t>::is_always_lock_free);

std::vector<std::filesystem::path>& registry() {
  static std::vector<std::filesystem::path> dirs;
  return dirs;
}

void on_signal(int sig) {
  if (g_signal != 0 || g_owner.load() != ::getpid()) { // nothing of ours to clean, or a second signal
    std::signal(sig, SIG_DFL);
    std::raise(sig); // delivered when the handler returns
    return;
  }
  g_signal = sig;
}

} // namespace

void install_interrupt_handlers() {
  g_installed = true;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

void reinstall_interrupt_handlers() {
  if (g_installed) install_interrupt_handlers();
}

bool interrupted() {
  return g_signal != 0;
}

void die_if_interrupted() {
  const int sig = g_signal;
  if (sig == 0) return;
  if (g_owner.load() == ::getpid())
    for (const auto& dir : registry()) {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  std::fflush(nullptr);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
  ::_exit(128 + sig); // not reached
}

void register_cleanup(const std::filesystem::path& dir) {
  if (g_owner.load() != ::getpid()) registry().clear(); // a parent's folders, inherited through fork
  registry().push_back(dir);
  g_owner.store(::getpid());
}

void unregister_cleanup(const std::filesystem::path& dir) {
  if (g_owner.load() != ::getpid()) return;
  auto& dirs = registry();
  dirs.erase(std::remove(dirs.begin(), dirs.end(), dir), dirs.end());
  if (dirs.empty()) g_owner.store(0);
}

} // namespace dcsim::sim
