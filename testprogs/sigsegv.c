/* Dies of SIGSEGV writing through a NULL pointer after one write(2). */
#include <string.h>
#include <unistd.h>

int main(void) {
    write(1, "about to crash\n", 15);
    volatile int *p = NULL;
    *p = 1;
    return 0;
}
