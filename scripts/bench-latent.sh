#!/usr/bin/env bash
# vkstat latent against a peer in the same run, per statistic: a synthetic
# float32 latent of N samples of [16, 16, 64, 64], each statistic computed
# REPEAT times by each, medians.
#
#   scripts/bench-latent.sh [bin/vkstat] [N=64] [REPEAT=3] [DEVICE=cpu] [PEER=numpy]
#
# PEER numpy (bench/peers/numpy_latent.py, the CPU machine's peer) or torch
# (bench/peers/torch_latent.py, PyTorch on a CUDA GPU; PYTHON picks the
# interpreter that has it). On the CPU path vkstat's time is its "compute:"
# line of --time; on a Vulkan device it is the wall time less start-up, the
# file read and the output writes (upload, kernels, download and the host's
# share), beside the kernels' GPU timestamps. NumPy's time is after the load;
# PyTorch's end to end is host array to host results, its kernel time CUDA
# events on a tensor already on the GPU.
#
# Prints a Markdown table for docs/benchmarks/latent.md.
set -euo pipefail
vkstat=${1:-bin/vkstat}
n=${2:-64}
repeat=${3:-3}
device=${4:-cpu}
peer=${5:-numpy}
repo=$(cd "$(dirname "$0")/.." && pwd)
case $peer in
numpy) py=${PYTHON:-/usr/bin/python3} ;;
torch) py=${PYTHON:-python3} ;;
*) echo "bench-latent: unknown peer $peer (numpy or torch)" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$vkstat" synth latent --shape "$n,16,16,64,64" --dtype f32 --seed 1 --out "$tmp/lat.npy" >/dev/null
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
if [ "$device" = cpu ]; then
	echo "| statistic | vkstat $device (ms) | $peer (ms) | ratio |"
	echo "|---|---:|---:|---:|"
else
	echo "| statistic | vkstat $device end to end (ms) | kernels (ms) | $peer end to end (ms) | kernels (ms) | ratio end to end | ratio kernels |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
fi
for stat in moments corr lagcorr pca spectra; do
	ts=() ks=()
	for ((i = 0; i < repeat; i++)); do
		rm -rf "$tmp/out"
		"$vkstat" --device "$device" --time latent --in "$tmp/lat.npy" --stat "$stat" --out-dir "$tmp/out" >/dev/null 2>"$tmp/time"
		ts+=("$(awk '$1 == "compute:" { c = $2 } $1 == "total:" { t = $2 } $1 == "start-up:" || $1 == "read:" || $1 == "write:" { o += $2 }
			END { print (c != "" ? c : t - o) }' "$tmp/time")")
		ks+=("$(awk '$1 == "kernel:" { print $2 }' "$tmp/time")")
	done
	v=$(printf '%s\n' "${ts[@]}" | median)
	p=$("$py" "$repo/bench/peers/${peer}_latent.py" "$tmp/lat.npy" "$stat" "$repeat")
	if [ "$device" = cpu ]; then
		awk -v s="$stat" -v v="$v" -v p="$(echo "$p" | awk '{ print $2 }')" 'BEGIN { printf "| %s | %.1f | %.1f | %.2f× |\n", s, v, p, p / v }'
	else
		k=$(printf '%s\n' "${ks[@]}" | median)
		echo "$p" | awk -v s="$stat" -v v="$v" -v k="$k" '{ pk = ($4 == "" ? "n/a" : $4)
			printf "| %s | %.2f | %s | %.2f | %s | %.2f× | %s |\n", s, v, k, $2, pk, $2 / v,
				(k + 0 > 0 && $4 != "" ? sprintf("%.2f×", $4 / k) : "n/a") }'
	fi
done
