#pragma once
// An SQLite VFS shim for durability tests: it wraps the default VFS, becomes the default itself
// and counts the xSync (fsync) calls on write-ahead logs and on main database files. A kill -9
// keeps the page cache, so a crash test cannot tell a synced commit from one that only reached
// the kernel (synchronous=OFF or NORMAL pass it); counting the syncs can.
#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>

namespace tessera::test {

class SyncCountingVfs {
 public:
  // Installs the shim as the default VFS, once per process (idempotent): every database opened
  // afterwards, by any thread, goes through it.
  static void install() {
    static const bool installed = [] {
      real() = sqlite3_vfs_find(nullptr);
      if (!real()) std::abort();
      static sqlite3_vfs shim = *real();
      shim.zName = "tessera-sync-counting";
      shim.szOsFile = static_cast<int>(sizeof(File)) + real()->szOsFile;
      shim.xOpen = open;
      shim.pNext = nullptr;
      return sqlite3_vfs_register(&shim, 1) == SQLITE_OK;
    }();
    if (!installed) std::abort();
  }
  // xSync calls so far on write-ahead logs (-wal files) and on main database files.
  static uint64_t walSyncs() { return walSyncs_.load(); }
  static uint64_t databaseSyncs() { return databaseSyncs_.load(); }

 private:
  // Our file, with the real VFS's file right behind it in the same allocation (szOsFile).
  struct File {
    sqlite3_file base;
    sqlite3_file* real;
    int openFlags;
  };
  // The real file starts right after ours: keep it aligned for its pointers and 64-bit fields.
  static_assert(sizeof(File) % 8 == 0);

  static sqlite3_vfs*& real() {
    static sqlite3_vfs* vfs = nullptr;
    return vfs;
  }
  static sqlite3_file* inner(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real; }

  static int open(sqlite3_vfs*, const char* name, sqlite3_file* file, int flags, int* outFlags) {
    auto* ours = reinterpret_cast<File*>(file);
    ours->real = reinterpret_cast<sqlite3_file*>(ours + 1);
    ours->openFlags = flags;
    const int rc = real()->xOpen(real(), name, ours->real, flags, outFlags);
    // SQLite calls xClose only when pMethods is set: leave it null when the real open failed.
    const sqlite3_io_methods* realMethods = ours->real->pMethods;
    // The forwarders below are those of version 3 (shared memory, memory mapping), which the
    // default unix VFS's files have; anything else would call a method the real file lacks.
    if (realMethods && realMethods->iVersion != 3) std::abort();
    ours->base.pMethods = realMethods ? &methods() : nullptr;
    return rc;
  }

  static int sync(sqlite3_file* f, int flags) {
    const int kind = reinterpret_cast<File*>(f)->openFlags;
    if (kind & SQLITE_OPEN_WAL) ++walSyncs_;
    if (kind & SQLITE_OPEN_MAIN_DB) ++databaseSyncs_;
    return inner(f)->pMethods->xSync(inner(f), flags);
  }

  // Every other method forwards to the real file.
  static const sqlite3_io_methods& methods() {
    static const sqlite3_io_methods m = {
        3,
        [](sqlite3_file* f) { return inner(f)->pMethods->xClose(inner(f)); },
        [](sqlite3_file* f, void* p, int n, sqlite3_int64 o) {
          return inner(f)->pMethods->xRead(inner(f), p, n, o);
        },
        [](sqlite3_file* f, const void* p, int n, sqlite3_int64 o) {
          return inner(f)->pMethods->xWrite(inner(f), p, n, o);
        },
        [](sqlite3_file* f, sqlite3_int64 size) {
          return inner(f)->pMethods->xTruncate(inner(f), size);
        },
        sync,
        [](sqlite3_file* f, sqlite3_int64* size) {
          return inner(f)->pMethods->xFileSize(inner(f), size);
        },
        [](sqlite3_file* f, int lock) { return inner(f)->pMethods->xLock(inner(f), lock); },
        [](sqlite3_file* f, int lock) { return inner(f)->pMethods->xUnlock(inner(f), lock); },
        [](sqlite3_file* f, int* out) {
          return inner(f)->pMethods->xCheckReservedLock(inner(f), out);
        },
        [](sqlite3_file* f, int op, void* arg) {
          return inner(f)->pMethods->xFileControl(inner(f), op, arg);
        },
        [](sqlite3_file* f) { return inner(f)->pMethods->xSectorSize(inner(f)); },
        [](sqlite3_file* f) { return inner(f)->pMethods->xDeviceCharacteristics(inner(f)); },
        [](sqlite3_file* f, int page, int size, int extend, void volatile** out) {
          return inner(f)->pMethods->xShmMap(inner(f), page, size, extend, out);
        },
        [](sqlite3_file* f, int offset, int n, int flags) {
          return inner(f)->pMethods->xShmLock(inner(f), offset, n, flags);
        },
        [](sqlite3_file* f) { inner(f)->pMethods->xShmBarrier(inner(f)); },
        [](sqlite3_file* f, int deleteFlag) {
          return inner(f)->pMethods->xShmUnmap(inner(f), deleteFlag);
        },
        [](sqlite3_file* f, sqlite3_int64 offset, int amount, void** out) {
          return inner(f)->pMethods->xFetch(inner(f), offset, amount, out);
        },
        [](sqlite3_file* f, sqlite3_int64 offset, void* p) {
          return inner(f)->pMethods->xUnfetch(inner(f), offset, p);
        },
    };
    return m;
  }

  static inline std::atomic<uint64_t> walSyncs_{0};
  static inline std::atomic<uint64_t> databaseSyncs_{0};
};

}  // namespace tessera::test
