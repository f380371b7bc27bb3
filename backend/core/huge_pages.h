#pragma once
// An allocator for the large arrays a cycle visits in random order, chiefly the job records
// (150,000 of about 900 bytes, read in queue order): on 4 KiB pages nearly every record visited
// costs a TLB miss and a page walk; on transparent huge pages (2 MiB) the same pass takes about
// half the time (docs/PERFORMANCE.md). Arrays under 2 MiB are allocated as usual.
//
// Only advice: where transparent huge pages are off (`never` in
// /sys/kernel/mm/transparent_hugepage/enabled) the pages stay 4 KiB and nothing else changes.
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <new>

namespace tessera {

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kHugePage = size_t{2} << 20;
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes));
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* p = std::aligned_alloc(kHugePage, rounded);
    if (!p) throw std::bad_alloc();
    // Before the first touch: pages faulted in afterwards come as huge pages.
    (void)::madvise(p, rounded, MADV_HUGEPAGE);
    return static_cast<T*>(p);
  }

  void deallocate(T* p, size_t n) noexcept {
    if (n * sizeof(T) < kHugePage)
      ::operator delete(p);
    else
      std::free(p);
  }

  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }
};

}  // namespace tessera
