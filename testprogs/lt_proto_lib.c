/* Library for tests/ltrace/ltrace_protos.rs: functions whose prototypes
 * (given with -F) use enums with negative values, display lenses and
 * structs of floats passed and returned in vector registers (the HFAs of
 * ltrace's parameters test). */
struct f3 { float a, b, c; };
struct f4 { float a, b, c, d; };
struct d2 { double a, b; };
struct li { long a; int b; };
struct ld { long a; double b; };

int p_enum(int e) { return e; }
int p_lens(int a, unsigned b, long c) { return a; }
long p_neg(long a, short b, char c) { return a; }
float hfa_f3(struct f3 s) { return s.a + s.b + s.c; }
float hfa_f4(struct f4 s) { return s.a + s.d; }
double hfa_d2(struct d2 s) { return s.a + s.b; }
struct f3 mk_f3(float x) { struct f3 s = { x, x * 2, x * 3 }; return s; }
struct f4 mk_f4(float x) { struct f4 s = { x, -x, x / 2, 0 }; return s; }
struct d2 mk_d2(double x) { struct d2 s = { x, -x }; return s; }
struct li mk_li(long x) { struct li s = { x, (int)-x }; return s; }
struct ld mk_ld(long x) { struct ld s = { x, x / 4.0 }; return s; }
