/* Prints the address of the buffer holding argv[1] ("ptr=0x..."), creates
 * that file with openat(O_WRONLY|O_CREAT|O_EXCL) and removes it, then
 * overwrites the buffer with "C" and prints "opened"; waits for EOF on stdin
 * and exits 0. A tracer that reads the path from memory after the event
 * finds "C" there, not the path the kernel opened. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char path[4096];

int main(int argc, char **argv) {
    if (argc < 2)
        return 2;
    snprintf(path, sizeof path, "%s", argv[1]);
    printf("ptr=%p\n", (void *)path);
    fflush(stdout);
    int fd = openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        perror(path);
        return 1;
    }
    close(fd);
    unlink(path);
    strcpy(path, "C");
    printf("opened\n");
    fflush(stdout);
    char buf[64];
    while (read(0, buf, sizeof buf) > 0)
        ;
    return 0;
}
