/* Targeted fault-injection target: `inject_paths ARG...` opens each ARG
 * with openat(AT_FDCWD, PATH, ...) through syscall(2) (so the calls are
 * exactly these), in order, and prints one line per call: "PATH:ok" or
 * "PATH:err=E". An ARG "c:PATH" opens PATH with O_WRONLY|O_CREAT (0600),
 * anything else O_RDONLY. Successfully opened descriptors are closed. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	for (int i = 1; i < argc; i++) {
		const char *path = argv[i];
		int flags = O_RDONLY;
		if (strncmp(path, "c:", 2) == 0) {
			path += 2;
			flags = O_WRONLY | O_CREAT;
		}
		long fd = syscall(SYS_openat, AT_FDCWD, path, flags, 0600);
		if (fd < 0) {
			printf("%s:err=%d\n", argv[i], errno);
		} else {
			printf("%s:ok\n", argv[i]);
			close((int)fd);
		}
	}
	return 0;
}
