// A C++ backtrace through inlined methods (tests/debugger/break_bt.rs),
// built with -O2: Acc::add and Runner<T>::run are inlined into main, leaf
// is not; gdb shows the inlined frames between leaf and main.
#include <cstdio>

namespace calc {
__attribute__((noinline)) int leaf(int v)
{
	asm volatile("" ::: "memory");
	return v * 2;
}

struct Acc {
	int sum = 0;
	void add(int v) { sum += leaf(v); }
};

template <typename T> struct Runner {
	T acc;
	void run(int n)
	{
		for (int i = 0; i < n; i++)
			acc.add(i);
	}
};
} // namespace calc

int main(int argc, char **)
{
	calc::Runner<calc::Acc> r;
	r.run(argc + 2);
	printf("%d\n", r.acc.sum);
	return 0;
}
