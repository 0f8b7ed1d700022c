/* Helpers for the rtrace watch test programs (x86_64). */
#ifndef WP_LABELS_H
#define WP_LABELS_H

/* The runtime address of an assembler-local label (".Lname", defined in an
 * asm statement of the same file). Local labels get no symbol, so the
 * tracer's func+off of the instruction there is the real function's. */
#define LABEL_ADDR(l)                                           \
	({                                                      \
		void *p_;                                       \
		__asm__("lea " l "(%%rip), %0" : "=r"(p_));     \
		p_;                                             \
	})

#endif
