/* Prints the real and effective user ids it runs with: "uid U euid E".
 * Installed setuid root by the fault tests and run by an unprivileged user
 * under a tracer, it must see its caller's euid (the kernel ignores the
 * setuid bit of a traced exec). */
#include <stdio.h>
#include <unistd.h>

int main(void)
{
	printf("uid %d euid %d\n", (int)getuid(), (int)geteuid());
	return 0;
}
