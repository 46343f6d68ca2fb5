#!/usr/bin/env bash
# make bench-cpu: `vkstat bench` on the CPU path and every Vulkan device
# (lavapipe without a GPU), then the NumPy peers on the same workloads, in
# one run on this machine. Writes docs/benchmarks/cpu.md; the raw figures
# (vkstat's JSON, Markdown table and chart, the peers' JSON lines) go to
# out/bench/.
#
# Usage: scripts/bench-cpu.sh [path/to/vkstat]
# Environment: BENCH_SIZE (paper: the seed workloads; small), BENCH_REPEAT
# (timed runs per figure, 10), BENCH_DEVICE (all).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-bin/vkstat}
size=${BENCH_SIZE:-paper}
repeat=${BENCH_REPEAT:-10}
device=${BENCH_DEVICE:-all}
raw=out/bench
mkdir -p "$raw" docs/benchmarks
py=/usr/bin/python3
[ -x $py ] || py=python3
"$py" -c 'import numpy' 2>/dev/null || { echo "bench-cpu: NumPy is missing for $py (Debian/Ubuntu: apt-get install python3-numpy)" >&2; exit 1; }

cmd=("$bin" bench --suite all --device "$device" --size "$size" --repeat "$repeat" --json "$raw/vkstat.json" --png "$raw/vkstat.png")
echo "== ${cmd[*]}" >&2
"${cmd[@]}" | tee "$raw/vkstat.md"
echo "== NumPy peers on the same workloads" >&2
"$py" bench/report_cpu.py peers --peer numpy --repeat "$repeat" --python "$py" "$raw/vkstat.json" | tee "$raw/numpy.jsonl"
"$py" bench/report_cpu.py report --title "CPU-machine benchmarks" \
	--command "make bench-cpu (scripts/bench-cpu.sh, BENCH_SIZE=$size BENCH_REPEAT=$repeat)" \
	"$raw/vkstat.json" "$raw/numpy.jsonl" > docs/benchmarks/cpu.md
echo "wrote docs/benchmarks/cpu.md (raw figures and chart in $raw/)" >&2
