/* A write(2) three calls deep, for `-k` stack traces. */
#include <unistd.h>

__attribute__((noinline)) static void inner(void) { write(1, "hi\n", 3); }
__attribute__((noinline)) static void outer(void) { inner(); }

int main(void) {
    outer();
    return 0;
}
