#define _GNU_SOURCE
#include <errno.h>
#include <unistd.h>
#include "CFileSupport.h"

#if defined(__linux__)
#include <sys/resource.h>
#include <sys/syscall.h>

int rm_lower_thread_priority(int niceness) {
    /* On Linux a nice value belongs to a thread (its tid), not to the whole process. */
    long tid = syscall(SYS_gettid);
    return setpriority(PRIO_PROCESS, (id_t)tid, niceness);
}
#else
int rm_lower_thread_priority(int niceness) {
    (void)niceness;
    errno = ENOSYS;
    return -1;
}
#endif
