#!/usr/bin/env bash
# The data paths a discrete GPU takes, run on whatever Vulkan device is here
# (lavapipe in CI), with the validation layer on:
#   1. every device taken as discrete: device-local buffers that the host
#      cannot map, arrays of 1 MiB or more copied by the device straight
#      from and into host memory it imports (VK_EXT_external_memory_host,
#      which lavapipe and SwiftShader offer), smaller ones through a
#      staging ring of small chunks (many chunks per array), submitted on
#      a separate transfer queue path synchronised by semaphores;
#   2. a 32 MiB device-memory budget, so that operations run in passes,
#      with imports off: every array through the staging ring.
# Each runs the pipelines' suites, which hold results to the float64
# references. PACO needs its whole cube on the device (in blocks of frames)
# and is left out of the budget run; the fused gather+Cholesky, which also
# holds its cube, runs under it on inputs that fit.
set -euo pipefail
cd "$(dirname "$0")/.."
export VKSTAT_VALIDATE=1
short=${SHORT:--short}
echo "== data path: discrete, transfer queue, 64 KiB staging chunks"
VKSTAT_DISCRETE=1 VKSTAT_TRANSFER=queue VKSTAT_STAGING_CHUNK=64KiB \
	go test $short -count=1 ./engine ./pipelines/... ./suite
echo "== data path: 32 MiB device-memory budget, staging only"
VKSTAT_DEVICE_MEMORY=32MiB VKSTAT_DISCRETE=1 VKSTAT_IMPORT=0 \
	go test $short -count=1 ./pipelines/mapx ./pipelines/reduce ./pipelines/cov ./pipelines/chol \
	-run 'Vulkan'
