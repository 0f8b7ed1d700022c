/* One non-UTF-8 byte, given as two hex digits in argv[1] or, without an
 * argument, on stdin (so two runs can differ in nothing but that byte):
 * opens a file named by that byte (which does not exist: the call fails
 * with ENOENT) and writes the byte to stdout. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv) {
    char hex[3] = "ff";
    if (argc > 1) {
        hex[0] = argv[1][0];
        hex[1] = argv[1][1];
    } else if (read(0, hex, 2) != 2) {
        return 2;
    }
    unsigned char b = (unsigned char)strtoul(hex, NULL, 16);
    char path[] = "rtrace-no-such-file-?";
    path[sizeof path - 2] = (char)b;
    int fd = open(path, O_RDONLY);
    if (fd >= 0)
        close(fd);
    write(1, &b, 1);
    return 0;
}
