#!/usr/bin/env bash
# A long-running session's resident memory (issue 34, item 7): 100,000
# pairs of chol(a, b, inverse, logdet) and map calls through the Python
# package, on lavapipe and on the CPU path, RSS printed as they go
# (bench/memory_loop.py). About 2 minutes a device on 2 cores.
#   scripts/bench-memory.sh [CALLS]
set -euo pipefail
cd "$(dirname "$0")/.."
calls=${1:-100000}
make -s pylib
for dev in lavapipe cpu; do
	echo "== $dev, $calls map+chol pairs"
	${PYTHON:-/usr/bin/python3} bench/memory_loop.py --device "$dev" --calls "$calls"
done
