#!/usr/bin/env bash
# make bench-cpu: the CPU path and lavapipe against NumPy, in one run, on
# this machine. Writes docs/benchmarks/cpu.md (and the raw logs beside it
# under out/bench/).
set -euo pipefail
cd "$(dirname "$0")/.."
raw=out/bench
mkdir -p "$raw"
py=/usr/bin/python3
[ -x $py ] || py=python3

echo "== Go benchmarks (CPU path and Vulkan devices)" >&2
go test -run '^$' -bench 'Grade2CPU$|Grade2Vulkan|MeanStdCPU$|MeanStdVulkan' -benchtime 10x -count 1 \
	./pipelines/mapx ./pipelines/reduce | tee "$raw/go.txt"
echo "== NumPy peers" >&2
{
	$py bench/peers/numpy_map.py --n 5000000 --repeat 10
	$py bench/peers/numpy_reduce.py --shape 64,1024,1024 --axis 0 --repeat 10
} | tee "$raw/numpy.jsonl"

$py bench/report_cpu.py "$raw/go.txt" "$raw/numpy.jsonl" > docs/benchmarks/cpu.md
echo "wrote docs/benchmarks/cpu.md" >&2
