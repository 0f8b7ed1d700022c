// C++ calls for rltrace -C: operator new[] and delete[] come from
// libstdc++ under mangled names (_Znam, _ZdaPv). Prints the array's address.
#include <cstdio>

int main()
{
    int *p = new int[4];
    p[0] = 1;
    std::printf("%p\n", (void *)p);
    delete[] p;
    return 0;
}
