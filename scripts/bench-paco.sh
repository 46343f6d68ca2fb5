#!/usr/bin/env bash
# make bench-paco: PACO per stage on the CPU path and lavapipe (and any GPU)
# against the NumPy implementation of the same algorithm
# (bench/peers/numpy_paco.py), in one run. Writes docs/benchmarks/paco.md.
set -euo pipefail
cd "$(dirname "$0")/.."
raw=out/bench
mkdir -p "$raw"
py=/usr/bin/python3
[ -x $py ] || py=python3
benchtime=${BENCHTIME:-3x}

echo "== Go benchmarks" >&2
go test -run '^$' -bench 'PACO' -benchtime "$benchtime" -count 1 -timeout 60m ./pipelines/paco | tee "$raw/paco-go.txt"
echo "== NumPy peer" >&2
{
	$py bench/peers/numpy_paco.py --size 100 --frames 252 --radius 4 --repeat 3
	$py bench/peers/numpy_paco.py --size 256 --frames 128 --radius 4 --repeat 2
} | tee "$raw/paco-numpy.jsonl"
$py bench/report_paco.py "$raw/paco-go.txt" "$raw/paco-numpy.jsonl" > "$raw/paco.md"
mv "$raw/paco.md" docs/benchmarks/paco.md # after the report read the part it keeps
echo "wrote docs/benchmarks/paco.md" >&2
