/* A library function that calls into another library (ltrace's libfilt1):
 * rltrace's test of a PLT probe and a symbol-entry probe (-e func1 -x func1)
 * on the same frame. Built as libltnest1.so by tests/ltrace/ltrace_nesting.rs. */
int func2(int);

int func1(int x)
{
	return func2(x) + 1;
}
