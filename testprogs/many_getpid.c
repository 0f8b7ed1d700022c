/* 20000 getpid() and 5 getppid() calls: with `-e trace=getppid` and the
 * seccomp filter, only the 5 getppid calls may stop the tracee. */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(void) {
    for (int i = 0; i < 20000; i++)
        syscall(SYS_getpid);
    for (int i = 0; i < 5; i++)
        syscall(SYS_getppid);
    puts("many_getpid done");
    return 0;
}
