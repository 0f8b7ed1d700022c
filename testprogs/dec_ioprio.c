/* ioprio_get/ioprio_set (tests/decode_sys.rs, ioprio_matches_strace):
 * every class and "which", an unknown which and class, results. */
#include <sys/syscall.h>
#include <unistd.h>
int main(void){ syscall(SYS_ioprio_set, 1, 0, (2<<13)|4); syscall(SYS_ioprio_get, 1, 0); syscall(SYS_ioprio_set, 2, 0, 0); syscall(SYS_ioprio_get, 3, 0); syscall(SYS_ioprio_set, 9, 0, (7<<13)|1); syscall(SYS_ioprio_set, 1, getpid(), 3<<13); syscall(SYS_ioprio_get, 1, getpid()); return 0; }
