//go:build linux && cgo

package onearena

/*
#include <malloc.h>
#include <stdlib.h>

// Weak, so that a C library without mallopt links.
extern int mallopt(int, int) __attribute__((weak));

static int onearena_applied;

__attribute__((constructor)) static void onearena_init(void) {
#ifdef M_ARENA_MAX
	if (mallopt != 0 && getenv("MALLOC_ARENA_MAX") == NULL) {
		onearena_applied = mallopt(M_ARENA_MAX, 1) == 1;
	}
#endif
}

static int onearena_was_applied(void) { return onearena_applied; }
*/
import "C"

// Applied reports whether the limit was set when the process loaded.
func Applied() bool { return C.onearena_was_applied() != 0 }
