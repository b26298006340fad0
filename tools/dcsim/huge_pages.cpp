#include "tools/dcsim/huge_pages.hpp"

#include <cstdlib>
#include <cstring>
#include <string>

#include <unistd.h>

namespace dcsim::tools {

void use_transparent_huge_pages(char** argv) {
  if (std::getenv("DCSIM_NO_HUGE_PAGES") != nullptr) return;
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (tunables != nullptr && std::strstr(tunables, "glibc.malloc.hugetlb") != nullptr) return;
  const std::string value =
      tunables != nullptr && *tunables != '\0' ? std::string(tunables) + ":glibc.malloc.hugetlb=1" : "glibc.malloc.hugetlb=1";
  if (::setenv("GLIBC_TUNABLES", value.c_str(), 1) != 0) return;
  ::execv("/proc/self/exe", argv); // only returns on failure: go on with 4 KiB pages
}

} // namespace dcsim::tools
