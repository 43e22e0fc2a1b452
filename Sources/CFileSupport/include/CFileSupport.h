#ifndef C_FILE_SUPPORT_H
#define C_FILE_SUPPORT_H

/// The RESOLVE_* flags of openat2(2), with the kernel's values (linux/openat2.h), spelled here so that Swift sees them
/// on every platform.
enum {
    RM_RESOLVE_NO_XDEV = 0x01,
    RM_RESOLVE_NO_MAGICLINKS = 0x02,
    RM_RESOLVE_NO_SYMLINKS = 0x04,
    RM_RESOLVE_BENEATH = 0x08,
    RM_RESOLVE_IN_ROOT = 0x10,
};

/// openat2(2) through syscall(SYS_openat2, …), which Glibc does not wrap: opens `path` relative to `dirfd` with the
/// open(2) `flags` and `mode` and the RM_RESOLVE_* bits in `resolve`. Returns the descriptor, or -1 with errno set;
/// errno is ENOSYS where the kernel (Linux < 5.6) or the platform has no openat2.
int rm_openat2(int dirfd, const char *path, int flags, unsigned int mode, unsigned long long resolve);

/// O_PATH (Linux ≥ 2.6.39: a descriptor that only names a place, usable as the directory of `*at` calls without read
/// permission), which Swift's Glibc module does not export; 0 where the platform has none.
int rm_o_path(void);

/// Gives the calling thread the nice value `niceness` (higher: less CPU when others want it), for background work that
/// must not slow down answering requests. Linux only (a nice value is per thread there); elsewhere -1 with ENOSYS.
int rm_lower_thread_priority(int niceness);

#endif
