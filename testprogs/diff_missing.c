/* A CI-style failure: reads data/input.txt (relative to the working
 * directory) and fails with exit status 1 when it is missing. Before that
 * it forks a child that stats data/config.txt (a second process in the
 * recording) and writes to a mkstemp file under /tmp (a run-specific temp
 * path), and prints its pid (run-specific output). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int main(void) {
    pid_t p = fork();
    if (p == 0) {
        struct stat st;
        _exit(stat("data/config.txt", &st) == 0 ? 0 : 3);
    }
    int status;
    waitpid(p, &status, 0);
    char tmpl[] = "/tmp/diff_missing_XXXXXX";
    int t = mkstemp(tmpl);
    if (t >= 0) {
        write(t, "scratch\n", 8);
        close(t);
        unlink(tmpl);
    }
    printf("pid %d\n", (int)getpid());
    fflush(stdout);
    int fd = open("data/input.txt", O_RDONLY);
    if (fd < 0) {
        perror("data/input.txt");
        return 1;
    }
    char buf[256];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    printf("read %zd bytes\n", n);
    return 0;
}
