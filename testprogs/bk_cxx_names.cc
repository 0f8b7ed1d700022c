// Function names as gdb prints them in breakpoint and backtrace lines
// (tests/debugger/break_names.rs): a free function in a nested
// namespace, a const method defined outside its class, a static method,
// a method of a class template instance, an overload pair and a function
// in an anonymous namespace. main -> Meter::read -> inner::scale and
// main -> hidden -> inner::scale give three-frame backtraces.
#include <cstdio>

namespace outer {
namespace inner {
__attribute__((noinline)) int scale(int v) { return v * 3; }
} // namespace inner

struct Meter {
	int base;
	__attribute__((noinline)) int read(int k) const;
	__attribute__((noinline)) static int unit(long x) { return (int)x + 1; }
};
int Meter::read(int k) const { return base + inner::scale(k); }

template <typename T> struct Box {
	T v;
	__attribute__((noinline)) T get(int k) const { return v + k; }
};

__attribute__((noinline)) int pick(int a) { return a; }
__attribute__((noinline)) int pick(int a, int b) { return a + b; }
} // namespace outer

namespace {
__attribute__((noinline)) int hidden(int x) { return outer::inner::scale(x) - 1; }
} // namespace

int main()
{
	outer::Meter m{10};
	outer::Box<long> b{5};
	long t = m.read(2) + outer::Meter::unit(4) + b.get(1);
	t += outer::pick(1) + outer::pick(2, 3) + hidden(7);
	printf("%ld\n", t);
	return 0;
}
