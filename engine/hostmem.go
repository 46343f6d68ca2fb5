package engine

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// HostMemoryFraction is the part of the available memory that the CPU
// path plans to use for batched work (HostBudget): the rest is left to the
// outputs, the page cache and other processes.
const HostMemoryFraction = 0.5

// HostMemoryUnknown is what HostBudget and CheckHostMemory allow where
// the available memory cannot be read (no /proc/meminfo): 64 GiB.
const HostMemoryUnknown = 64 << 30

// AvailableMemory is MemAvailable from /proc/meminfo in bytes, or 0 when
// it cannot be read.
func AvailableMemory() uint64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kib, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				return 0
			}
			return kib << 10
		}
	}
	return 0
}

// HostBudget is the CPU path's memory budget where avail bytes are
// available (AvailableMemory; 0 when unknown): HostMemoryFraction of
// them, or HostMemoryUnknown.
func HostBudget(avail uint64) MemoryBudget {
	if avail == 0 {
		return MemoryBudget{Bytes: HostMemoryUnknown, Source: "no /proc/meminfo: a fixed 64 GiB"}
	}
	return MemoryBudget{Bytes: int64(float64(avail) * HostMemoryFraction), HeapSize: avail, Source: "50% of MemAvailable"}
}

// CheckHostMemory refuses, before allocating, an array of bytes bytes
// (what names it) that avail available bytes (AvailableMemory; 0 when
// unknown: HostMemoryUnknown) cannot hold: Go's runtime would otherwise
// die with "fatal error: out of memory" and a stack trace.
func CheckHostMemory(what string, bytes, avail uint64) error {
	gib := func(b uint64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
	if avail == 0 {
		if bytes > HostMemoryUnknown {
			return fmt.Errorf("%s needs %s, more than the %s vkstat allows where it cannot read the available memory", what, gib(bytes), gib(HostMemoryUnknown))
		}
		return nil
	}
	if bytes > avail {
		return fmt.Errorf("%s needs %s of memory; this machine has %s available (MemAvailable in /proc/meminfo)", what, gib(bytes), gib(avail))
	}
	return nil
}
