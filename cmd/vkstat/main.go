// Command vkstat runs batched statistics and small dense linear algebra on
// Vulkan GPUs or on the CPU. See the README, or run `vkstat --help`.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/vkstat/vkstat/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Main(ctx, os.Args, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
