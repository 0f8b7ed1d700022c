// rtrace break on C++ names (tests/debugger/break_langs.rs): a namespace,
// a class with an overloaded const method, overloaded free functions and
// a function template, each called a known number of times.
#include <cstdio>

namespace ns {
struct Shape {
	int w;
	__attribute__((noinline)) int area(int k) const { return w * k; }
	__attribute__((noinline)) int area() const { return w; }
};
__attribute__((noinline)) int twice(int x) { return 2 * x; }
__attribute__((noinline)) int twice(double x) { return (int)(3 * x); }
template <typename T> __attribute__((noinline)) T triple(T x) { return 3 * x; }
} // namespace ns

int main()
{
	ns::Shape s{3};
	long t = 0;
	for (int i = 0; i < 3; i++)
		t += s.area(i) + s.area() + ns::twice(i) + ns::triple(i);
	t += ns::twice(1.5) + (long)ns::triple(2.5);
	printf("%ld\n", t);
	return 0;
}
