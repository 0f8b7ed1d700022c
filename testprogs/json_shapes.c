/* Values whose JSON shape is checked: mmap flags (a symbol set in the
 * decoder), a file mode with permission bits, and a child killed by
 * SIGKILL; exits 3. Prints "mode 640" and "child killed 9". */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    void *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 1;
    munmap(p, 4096);
    const char *path = argc > 1 ? argv[1] : "json_shapes.tmp";
    FILE *f = fopen(path, "w");
    if (!f)
        return 1;
    fchmod(fileno(f), 0640);
    struct stat st;
    fstat(fileno(f), &st);
    fclose(f);
    unlink(path);
    printf("mode %o\n", st.st_mode & 0777);
    fflush(stdout);
    pid_t c = fork();
    if (c == 0) {
        kill(getpid(), SIGKILL);
        _exit(0);
    }
    int ws;
    waitpid(c, &ws, 0);
    printf("child killed %d\n", WIFSIGNALED(ws) ? WTERMSIG(ws) : 0);
    return 3;
}
