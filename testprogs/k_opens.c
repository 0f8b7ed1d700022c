/* Opens and closes /dev/null with openat(2) exactly argv[1] times (default
 * 1000) and nothing else; built static, so no loader opens files either. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 1000;
    for (int i = 0; i < count; i++) {
        int fd = openat(AT_FDCWD, "/dev/null", O_RDONLY);
        if (fd < 0)
            return 1;
        close(fd);
    }
    return 0;
}
