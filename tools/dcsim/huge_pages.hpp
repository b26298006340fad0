// Transparent huge pages for dcsim's heap.
//
// A replica allocates tens to hundreds of MiB (event records, time-series samples, per-GPU state) in a
// freshly forked child, so every 4 KiB page is faulted in once; under a paravirtualised kernel a fault
// costs microseconds and faults were a fifth of a replica's time (bench case b: 48 MiB, ~12,000 faults).
// glibc (>= 2.35) can ask for transparent huge pages on the chunks it maps (tunable
// glibc.malloc.hugetlb=1, honoured by kernels whose THP mode is "madvise", Debian's default), but
// tunables are read only when a process starts: the binary re-executes itself once with the tunable set.
// Results do not depend on it (the heap's page size changes nothing the simulation computes).
#pragma once

namespace dcsim::tools {

/// Call first in main(): unless GLIBC_TUNABLES already names glibc.malloc.hugetlb (or DCSIM_NO_HUGE_PAGES
/// is set), sets it and re-executes /proc/self/exe with the same arguments. Returns if that fails.
void use_transparent_huge_pages(char** argv);

} // namespace dcsim::tools
