//go:build !linux

package main

// stdoutClosed is only known on Linux (see stdout_linux.go).
func stdoutClosed() bool { return false }
