#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include "CFileSupport.h"

#if defined(__linux__)
#include <sys/syscall.h>
#endif

#if defined(__linux__) && defined(SYS_openat2)
#include <linux/openat2.h>

_Static_assert(RM_RESOLVE_NO_XDEV == RESOLVE_NO_XDEV, "RESOLVE_NO_XDEV");
_Static_assert(RM_RESOLVE_NO_MAGICLINKS == RESOLVE_NO_MAGICLINKS, "RESOLVE_NO_MAGICLINKS");
_Static_assert(RM_RESOLVE_NO_SYMLINKS == RESOLVE_NO_SYMLINKS, "RESOLVE_NO_SYMLINKS");
_Static_assert(RM_RESOLVE_BENEATH == RESOLVE_BENEATH, "RESOLVE_BENEATH");
_Static_assert(RM_RESOLVE_IN_ROOT == RESOLVE_IN_ROOT, "RESOLVE_IN_ROOT");

int rm_openat2(int dirfd, const char *path, int flags, unsigned int mode, unsigned long long resolve) {
    struct open_how how;
    memset(&how, 0, sizeof how);
    how.flags = (uint64_t)(unsigned int)flags;
    /* openat2 refuses a mode without O_CREAT or O_TMPFILE (which contains O_DIRECTORY's bit: test it whole). */
    how.mode = ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) ? mode : 0;
    how.resolve = resolve;
    long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof how);
    return (int)fd;
}
#else
int rm_openat2(int dirfd, const char *path, int flags, unsigned int mode, unsigned long long resolve) {
    (void)dirfd;
    (void)path;
    (void)flags;
    (void)mode;
    (void)resolve;
    errno = ENOSYS;
    return -1;
}
#endif

int rm_o_path(void) {
#if defined(O_PATH)
    return O_PATH;
#else
    return 0;
#endif
}
