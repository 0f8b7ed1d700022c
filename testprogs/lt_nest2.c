/* The library libltnest1.so calls into (ltrace's libfilt2). */
int func2(int x)
{
	return x * 2;
}
