#!/usr/bin/env bash
# vkstat latent against a peer in the same run, per statistic: a synthetic
# float32 latent of N samples of [16, 16, 64, 64], each statistic computed
# REPEAT times by each, medians.
#
#   scripts/bench-latent.sh [bin/vkstat] [N=64] [REPEAT=3] [DEVICE=cpu] [PEER=numpy]
#
# PEER numpy (bench/peers/numpy_latent.py, the CPU machine's peer) or torch
# (bench/peers/torch_latent.py, PyTorch on a CUDA GPU; PYTHON picks the
# interpreter that has it), run once for every statistic (one interpreter,
# one CUDA start). On the CPU path vkstat's time is its "compute:" line of
# --time; on a Vulkan device it is the wall time less start-up, the file
# read and the output writes (upload, kernels, download, VkFFT's planning
# and the host's share), beside the kernels' GPU timestamps. NumPy's time is
# after the load; PyTorch's end to end is host array to host results, its
# kernel time CUDA events on a tensor already on the GPU. STATS (default
# moments,corr,lagcorr,pca,spectra) picks the statistics.
#
# Prints a Markdown table for docs/benchmarks/latent.md; against PyTorch,
# each row says whether it meets issue 32's targets: end to end at least
# 1.5× PyTorch's for every statistic, and the corr, lagcorr and pca kernels
# at least PyTorch's (met, or missed), and a last line counts them.
set -euo pipefail
vkstat=${1:-bin/vkstat}
n=${2:-64}
repeat=${3:-3}
device=${4:-cpu}
peer=${5:-numpy}
stats=${STATS:-moments,corr,lagcorr,pca,spectra}
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
"$py" "$repo/bench/peers/${peer}_latent.py" "$tmp/lat.npy" "$stats" "$repeat" >"$tmp/peer"
if [ "$device" = cpu ]; then
	echo "| statistic | vkstat $device (ms) | $peer (ms) | ratio |"
	echo "|---|---:|---:|---:|"
elif [ "$peer" = torch ]; then
	echo "| statistic | vkstat $device end to end (ms) | kernels (ms) | $peer end to end (ms) | kernels (ms) | ratio end to end | ratio kernels | target (end to end ≥ 1.5×; kernels ≥ 1×) |"
	echo "|---|---:|---:|---:|---:|---:|---:|---|"
else
	echo "| statistic | vkstat $device end to end (ms) | kernels (ms) | $peer end to end (ms) | kernels (ms) | ratio end to end | ratio kernels |"
	echo "|---|---:|---:|---:|---:|---:|---:|"
fi
for stat in ${stats//,/ }; do
	ts=() ks=()
	for ((i = 0; i < repeat; i++)); do
		rm -rf "$tmp/out"
		"$vkstat" --device "$device" --time latent --in "$tmp/lat.npy" --stat "$stat" --out-dir "$tmp/out" >/dev/null 2>"$tmp/time"
		ts+=("$(awk '$1 == "compute:" { c = $2 } $1 == "total:" { t = $2 } $1 == "start-up:" || $1 == "read:" || $1 == "write:" { o += $2 }
			END { print (c != "" ? c : t - o) }' "$tmp/time")")
		ks+=("$(awk '$1 == "kernel:" { print $2 }' "$tmp/time")")
	done
	v=$(printf '%s\n' "${ts[@]}" | median)
	p=$(awk -v s="$stat" '$1 == s' "$tmp/peer")
	[ -n "$p" ] || { echo "bench-latent: the $peer peer printed nothing for $stat" >&2; exit 1; }
	if [ "$device" = cpu ]; then
		awk -v s="$stat" -v v="$v" -v p="$(echo "$p" | awk '{ print $2 }')" 'BEGIN { printf "| %s | %.1f | %.1f | %.2f× |\n", s, v, p, p / v }'
	else
		k=$(printf '%s\n' "${ks[@]}" | median)
		echo "$p" | awk -v s="$stat" -v v="$v" -v k="$k" -v torch="$([ "$peer" = torch ] && echo 1 || echo 0)" '{
			pk = ($4 == "" ? "n/a" : $4); re = $2 / v; rk = (k + 0 > 0 && $4 != "" ? $4 / k : -1)
			line = sprintf("| %s | %.2f | %s | %.2f | %s | %.2f× | %s |", s, v, k, $2, pk, re, (rk >= 0 ? sprintf("%.2f×", rk) : "n/a"))
			if (torch) {
				t = (re >= 1.5 ? "end to end met" : "end to end missed")
				if (s == "corr" || s == "lagcorr" || s == "pca")
					t = t (rk >= 1 ? ", kernels met" : ", kernels missed")
				line = line " " t " |"
			}
			print line }'
	fi
done | tee "$tmp/rows"
if [ "$peer" = torch ] && [ "$device" != cpu ]; then
	awk '{ m += gsub(/ met/, ""); x += gsub(/ missed/, "") } END { printf "\ntargets (issue 32, N = '"$n"'): %d met, %d missed\n", m, x }' "$tmp/rows"
fi
