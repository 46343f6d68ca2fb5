#!/usr/bin/env bash
# The suites under a tune cache that `vkstat bench --tune` wrote on this
# machine's Vulkan devices (lavapipe and SwiftShader in CI), validation on.
# The pipelines read the cache (mapx's, chol's and reduce's own tests turn
# it off to test the built-in values; cov's and latent's read it), so what
# the tuner may choose must pass them: on the H100 it chose float
# accumulation for cov, which then failed cov's and latent's suites
# (docs/benchmarks/gpu/2026-11-26-h100). The search's hard cases now leave
# such candidates out; this run shows it on the devices at hand.
set -euo pipefail
cd "$(dirname "$0")/.."
export VKSTAT_VALIDATE=1
short=${SHORT:--short}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export VKSTAT_TUNE_DIR=$tmp/cache
go build -o "$tmp/vkstat" ./cmd/vkstat
echo "== bench --tune (cov, reduce) on every Vulkan device"
"$tmp/vkstat" bench --tune --suite cov,reduce --device vulkan --repeat 1 >"$tmp/tune.log" ||
	{ cat "$tmp/tune.log"; exit 1; }
grep '^stored in' "$tmp/tune.log"
# The suites that take their parameters from the cache (the Tiled tests
# set their own, so they are left out).
echo "== cov and latent suites under that cache"
go test $short -count=1 ./pipelines/cov ./pipelines/latent \
	-run '^(TestVulkan|TestVulkanHalf|TestVulkanStrided|TestVulkanLongSets|TestVulkanLongLatent|TestPCAVulkan|TestCorrConstantNoNaN|TestTunerHardCases)$'
