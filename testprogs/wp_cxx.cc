// rtrace watch on C++ globals by their qualified names
// (tests/debugger/watch_langs.rs): a namespace variable and a static
// data member, each written three times.
#include <cstdio>
namespace ns { int counter; struct S { static long total; }; long S::total; }
__attribute__((noinline)) void bump(int i) { ns::counter += i; ns::S::total += 2 * i; }
int main() { for (int i = 1; i <= 3; i++) bump(i); printf("%d %ld\n", ns::counter, ns::S::total); }
