/* Prints its pid and the address of the path it passes, makes and removes
 * the directory argv[1] with mkdirat(2), then waits for EOF on stdin (the
 * test reads the event while it runs); exits 0. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static char path[4096];

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    snprintf(path, sizeof path, "%s", argv[1]);
    printf("pid=%d\n", getpid());
    printf("path=%p\n", (void *)path);
    fflush(stdout);
    if (mkdirat(AT_FDCWD, path, 0750) != 0 || rmdir(path) != 0) {
        perror(path);
        return 1;
    }
    char buf[64];
    while (read(0, buf, sizeof buf) > 0)
        ;
    return 0;
}
