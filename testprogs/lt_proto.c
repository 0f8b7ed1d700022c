/* Calls testprogs/lt_proto_lib.c's functions (tests/ltrace/ltrace_protos.rs). */
struct f3 { float a, b, c; };
struct f4 { float a, b, c, d; };
struct d2 { double a, b; };
struct li { long a; int b; };
struct ld { long a; double b; };
int p_enum(int e);
int p_lens(int a, unsigned b, long c);
long p_neg(long a, short b, char c);
float hfa_f3(struct f3 s);
float hfa_f4(struct f4 s);
double hfa_d2(struct d2 s);
struct f3 mk_f3(float x);
struct f4 mk_f4(float x);
struct d2 mk_d2(double x);
struct li mk_li(long x);
struct ld mk_ld(long x);

int main(void)
{
	struct f3 a = { 1.5, 2.5, 3.5 };
	struct f4 b = { 1, 2, 3, 4 };
	struct d2 c = { 0.25, 0.5 };

	p_enum(-1);
	p_enum(0);
	p_enum(5);
	p_enum(-7);
	p_lens(255, 8, -2);
	p_neg(-5, -3, -2);
	p_neg(3, 4, 'a');
	hfa_f3(a);
	hfa_f4(b);
	hfa_d2(c);
	mk_f3(1.25f);
	mk_f4(3.0f);
	mk_d2(2.5);
	mk_li(-9);
	mk_ld(6);
	return 0;
}
