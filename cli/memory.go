package cli

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/engine"
)

// maxAllocNoMeminfo caps one array where the available memory cannot be
// read (no /proc/meminfo): 64 GiB.
const maxAllocNoMeminfo = 64 << 30

// availableMemory is MemAvailable from /proc/meminfo in bytes, or 0 when it
// cannot be read. Tests replace it.
var availableMemory = func() uint64 {
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

// checkMemory refuses, before allocating, an array of bytes bytes that the
// machine cannot hold: Go's runtime would otherwise die with "fatal error:
// out of memory" and a stack trace.
func checkMemory(what string, bytes uint64) error {
	gib := func(b uint64) string { return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30)) }
	avail := availableMemory()
	if avail == 0 {
		if bytes > maxAllocNoMeminfo {
			return fmt.Errorf("%s needs %s, more than the %s vkstat allows where it cannot read the available memory", what, gib(bytes), gib(maxAllocNoMeminfo))
		}
		return nil
	}
	if bytes > avail {
		return fmt.Errorf("%s needs %s of memory; this machine has %s available (MemAvailable in /proc/meminfo)", what, gib(bytes), gib(avail))
	}
	return nil
}

// cpuBudgetFraction is the part of the available memory the CPU path plans
// to use for the batches of vkstat latent: the rest is left to the outputs,
// the page cache and other processes.
const cpuBudgetFraction = 0.5

// cpuBudget is the CPU path's memory budget: half of MemAvailable, or
// maxAllocNoMeminfo where /proc/meminfo cannot be read.
func cpuBudget() engine.MemoryBudget {
	avail := availableMemory()
	if avail == 0 {
		return engine.MemoryBudget{Bytes: maxAllocNoMeminfo, Source: "no /proc/meminfo: a fixed 64 GiB"}
	}
	return engine.MemoryBudget{Bytes: int64(float64(avail) * cpuBudgetFraction), HeapSize: avail, Source: "50% of MemAvailable"}
}
