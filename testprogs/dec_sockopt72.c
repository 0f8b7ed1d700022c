/* Socket options strace 7.2 decodes and strace 6.1 printed as numbers
 * (tests/strace/strace72_decoders.rs): SOL_TIPC's names and values
 * (TIPC_IMPORTANCE levels, struct tipc_group_req, ints, short lengths),
 * SOL_IP's IP_LOCAL_PORT_RANGE and IP_PROTOCOL (with lengths other than an
 * int's too: hex strings), and SO_DEVMEM_DONTNEED,
 * a setsockopt-only name. On an AF_INET socket the SOL_TIPC calls fail;
 * under `-e inject=getsockopt:retval=0` the getters' buffers print. */
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define SOL_TIPC_ 271

int main(void)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);
	int v[4] = { 0 };
	socklen_t l;
	for (int i = 0; i <= 4; i++) {
		v[0] = i;
		setsockopt(s, SOL_TIPC_, 127 /* TIPC_IMPORTANCE */, v, 4);
	}
	v[0] = 2;
	setsockopt(s, SOL_TIPC_, 127, v, 2);
	unsigned g[5] = { 1000, 2, 2, 3, 0 };
	setsockopt(s, SOL_TIPC_, 135 /* TIPC_GROUP_JOIN */, g, 16);
	for (unsigned sc = 0; sc <= 4; sc++) {
		g[2] = sc;
		g[3] = sc << 1;
		setsockopt(s, SOL_TIPC_, 135, g, 17);
	}
	setsockopt(s, SOL_TIPC_, 135, g, 12);
	v[0] = 5;
	for (int o = 128; o <= 139; o++)
		setsockopt(s, SOL_TIPC_, o, v, 4);
	l = 4;
	getsockopt(s, SOL_TIPC_, 127, v, &l);
	l = 4;
	getsockopt(s, SOL_TIPC_, 130, v, &l);
	l = 16;
	getsockopt(s, SOL_TIPC_, 135, g, &l);

	v[0] = 1;
	setsockopt(s, SOL_IP, 51 /* IP_LOCAL_PORT_RANGE */, v, 4);
	v[0] = 0x80001000;
	setsockopt(s, SOL_IP, 51, v, 4);
	v[0] = 0x50000;
	setsockopt(s, SOL_IP, 51, v, 4);
	l = 4;
	getsockopt(s, SOL_IP, 51, v, &l);
	v[0] = 0;
	setsockopt(s, SOL_IP, 51, v, 4);
	l = 4;
	getsockopt(s, SOL_IP, 51, v, &l);
	l = 4;
	getsockopt(s, SOL_IP, 52 /* IP_PROTOCOL */, v, &l);
	v[0] = 17;
	setsockopt(s, SOL_IP, 52, v, 4);
	unsigned char b[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	/* 7.2 decodes setsockopt's IP_LOCAL_PORT_RANGE only (IP_PROTOCOL's
	 * value takes the generic path there). */
	for (int name = 51; name <= 52; name++) {
		for (int n = 0; n <= 9; n++) {
			if (name == 51)
				setsockopt(s, SOL_IP, name, b, n);
			l = n;
			getsockopt(s, SOL_IP, name, b, &l);
		}
		if (name == 51)
			setsockopt(s, SOL_IP, name, b, sizeof(b));
		setsockopt(s, SOL_IP, name, (void *)8, 2);
		l = 2;
		getsockopt(s, SOL_IP, name, (void *)8, &l);
	}

	setsockopt(s, SOL_SOCKET, 80 /* SO_DEVMEM_DONTNEED */, v, 4);
	l = 4;
	getsockopt(s, SOL_SOCKET, 80, v, &l);
	return 0;
}
