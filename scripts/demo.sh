#!/usr/bin/env bash
# make demo: the elementwise map of the seed notebook (5·10⁶ float64, with the
# cost of copies shown), then per-pixel mean and standard deviation of an
# image stack, on the default device and, when present, on lavapipe.
set -euo pipefail
bin=${1:-bin/vkstat}
dir=out/demo
mkdir -p "$dir"
step() { printf '\n== %s\n' "$*"; }

step "devices"
$bin devices

step "inputs: x, y (5,000,000 float64) and a 64×512×512 float32 stack"
$bin synth random --shape 5000000 --dtype f64 --seed 1 --out $dir/x.npy
$bin synth random --shape 5000000 --dtype f64 --seed 2 --out $dir/y.npy
$bin synth random --shape 64,512,512 --dist normal --loc 1000 --scale 10 --seed 3 --out $dir/stack.npy

devices=(auto)
$bin devices --json | grep -q llvmpipe && devices+=(lavapipe)
for d in "${devices[@]}"; do
	step "z = 3.5·x² + 2.8·y + 10 on --device $d"
	$bin --device "$d" --time map --x $dir/x.npy --y $dir/y.npy --a 3.5 --b 2.8 --c 10 --out $dir/z-$d.npy
	step "mean and std over axis 0 of the stack on --device $d"
	$bin --device "$d" --time reduce --in $dir/stack.npy --axis 0 --stat mean,std --out-dir $dir/stats-$d
done
printf '\noutputs in %s\n' "$dir"
