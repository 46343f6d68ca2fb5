package main

/*
#include <fcntl.h>

// Standard output as the process found it, looked at before Go's runtime
// starts: the runtime puts /dev/null (read-write) on a standard descriptor
// that is closed at start, after which a closed one cannot be told from a
// /dev/null that the parent gave (Python's subprocess.DEVNULL is
// read-write too).
static int vkstat_stdout_closed;

__attribute__((constructor)) static void vkstat_look_at_stdout(void) {
	vkstat_stdout_closed = fcntl(1, F_GETFD) < 0;
}

static int vkstat_stdout_was_closed(void) { return vkstat_stdout_closed; }
*/
import "C"

// stdoutClosed reports whether vkstat was started with standard output
// closed (vkstat ... >&-): writes would then go to the runtime's /dev/null
// and the output be lost without a word.
func stdoutClosed() bool { return C.vkstat_stdout_was_closed() != 0 }
