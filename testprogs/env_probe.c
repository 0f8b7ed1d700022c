/* Looks at its stdout the way programs do before choosing buffering,
 * colours or a copy method: isatty(1), fstat(1), fcntl(1, F_GETFL) and
 * lseek(1, 0, SEEK_CUR). Then opens the file named by argv[1] (a
 * config.h) and exits with status 1 when it is missing. Prints one line
 * per finding, so on a terminal (line-buffered stdout) it writes in
 * several chunks and to a pipe or file in one. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *kind(mode_t m) {
    if (S_ISFIFO(m))
        return "pipe";
    if (S_ISREG(m))
        return "file";
    if (S_ISCHR(m))
        return "character device";
    return "other";
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: env_probe FILE\n");
        return 2;
    }
    int tty = isatty(1);
    struct stat st;
    int have_stat = fstat(1, &st) == 0;
    int flags = fcntl(1, F_GETFL);
    off_t pos = lseek(1, 0, SEEK_CUR);
    printf("stdout is a terminal: %s\n", tty ? "yes" : "no");
    printf("stdout is a %s\n", have_stat ? kind(st.st_mode) : "?");
    printf("stdout flags 0x%x, seekable %s\n", flags, pos >= 0 ? "yes" : "no");
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    char buf[256];
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    printf("read %zd bytes of %s\n", n, argv[1]);
    return 0;
}
