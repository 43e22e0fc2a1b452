#ifndef C_PROCESS_SUPPORT_H
#define C_PROCESS_SUPPORT_H

#include <spawn.h>
#include <sys/types.h>

/// posix_spawn_file_actions_addchdir_np (glibc >= 2.29, macOS >= 10.15): the child starts in `path`.
int rm_spawn_file_actions_addchdir(posix_spawn_file_actions_t *actions, const char *path);

/// posix_spawn_file_actions_addclosefrom_np where available (glibc >= 2.34): close every descriptor >= `from`
/// in the child. Returns ENOSYS where it is not available (descriptors are then closed by O_CLOEXEC only).
int rm_spawn_file_actions_addclosefrom(posix_spawn_file_actions_t *actions, int from);

/// A pipe whose both ends are close-on-exec, created atomically (pipe2 with O_CLOEXEC where available), so a child
/// spawned by another thread at the same moment cannot inherit it. Returns 0, or -1 with errno set.
int rm_pipe_cloexec(int fds[2]);

/// pidfd_open(2) (Linux >= 5.3): a descriptor that becomes readable when the process `pid` exits, so a process that is
/// not our child can be waited for without polling. Returns -1 with errno set (ENOSYS where there is no pidfd).
int rm_pidfd_open(pid_t pid);

/// poll(2) for one descriptor becoming readable, retried on EINTR: 1 when readable, 0 on timeout, -1 with errno.
int rm_poll_readable(int fd, int timeout_ms);

#endif
