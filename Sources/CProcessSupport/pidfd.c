#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sys/types.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif
#include "CProcessSupport.h"

int rm_pidfd_open(pid_t pid) {
#if defined(__linux__) && defined(SYS_pidfd_open)
    return (int)syscall(SYS_pidfd_open, pid, 0);
#elif defined(__linux__)
    return (int)syscall(434, pid, 0);
#else
    (void)pid;
    errno = ENOSYS;
    return -1;
#endif
}

int rm_poll_readable(int fd, int timeout_ms) {
    struct pollfd entry = {.fd = fd, .events = POLLIN, .revents = 0};
    int rc;
    do {
        rc = poll(&entry, 1, timeout_ms);
    } while (rc < 0 && errno == EINTR);
    return rc;
}
