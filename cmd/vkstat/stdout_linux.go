package main

import "syscall"

// stdoutClosed reports whether vkstat was started with standard output
// closed (vkstat ... >&-). Go's runtime opens /dev/null read-write on a
// standard descriptor that is closed at start, so writes to it would
// succeed and the output be lost without a word; a shell's >/dev/null
// opens it write-only, and a pipe or file is something else.
func stdoutClosed() bool {
	var st, null syscall.Stat_t
	if syscall.Fstat(1, &st) != nil || syscall.Stat("/dev/null", &null) != nil {
		return false
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFCHR || st.Rdev != null.Rdev {
		return false
	}
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, 1, syscall.F_GETFL, 0)
	return errno == 0 && flags&syscall.O_ACCMODE == syscall.O_RDWR
}
