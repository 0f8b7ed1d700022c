/* A program that waits in read(2) and answers: prints "ready PID", then for
 * every input line L prints "echo L"; at end of input prints "bye" and
 * exits 0. The fault tests stop, continue and kill it from outside while it
 * is traced. */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	char line[256];
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ready %d\n", getpid());
	while (fgets(line, sizeof line, stdin))
		printf("echo %s", line);
	printf("bye\n");
	return 0;
}
