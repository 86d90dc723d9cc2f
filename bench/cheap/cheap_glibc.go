//go:build linux && cgo

package cheap

/*
#include <malloc.h>

// Weak, so that a C library without mallinfo2 (musl, glibc before 2.33)
// links and reports nothing.
extern struct mallinfo2 mallinfo2(void) __attribute__((weak));

static long long cheap_in_use(void) {
	if (mallinfo2 == 0) {
		return -1;
	}
	struct mallinfo2 m = mallinfo2();
	return (long long)(m.uordblks + m.hblkhd);
}
*/
import "C"

// InUse is the bytes of the C heap in use (allocated by malloc and not
// freed, mmapped chunks included), and whether it could be read.
func InUse() (int64, bool) {
	n := int64(C.cheap_in_use())
	return n, n >= 0
}
