#!/usr/bin/env bash
# vkstat survey against separate vkstat paco runs: TARGETS synthetic
# targets (vkstat synth survey), the survey in one process, then one
# `vkstat paco` process per target with the same options, back to back,
# REPEAT times per device; prints the wall times, their medians and the
# ratio as Markdown (docs/benchmarks/survey.md).
#
#   scripts/bench-survey.sh [bin/vkstat] [device...]     # default devices: cpu
#
# TARGETS (20), REPEAT (3) and SYNTH ("--size 64 --frames 48") change the
# workload; PACO_FLAGS ("--radius 4 --quick-contrast": the curve's calibration,
# 8 more runs of the maps since 2026-12, would hide the per-process cost this
# measures) is given to both.
set -euo pipefail
vkstat=$(realpath "${1:-bin/vkstat}")
shift || true
devices=("$@")
[ ${#devices[@]} -gt 0 ] || devices=(cpu)
targets=${TARGETS:-20}
repeat=${REPEAT:-3}
synth=${SYNTH:---size 64 --frames 48}
flags=${PACO_FLAGS:---radius 4 --quick-contrast}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# shellcheck disable=SC2086 # flag lists
"$vkstat" synth survey --targets "$targets" $synth --out-dir "$tmp/data" >/dev/null
names=$(tail -n +2 "$tmp/data/manifest.csv" | cut -d, -f1)

now() { date +%s.%N; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

echo "| device | run | one process (s) | $targets × vkstat paco (s) | ratio |"
echo "|---|---|---|---|---|"
for dev in "${devices[@]}"; do
	one=() sep=()
	for r in $(seq "$repeat"); do
		rm -rf "$tmp/one" "$tmp/sep"
		t0=$(now)
		# shellcheck disable=SC2086
		"$vkstat" --device "$dev" survey run "$tmp/data/manifest.csv" --out-dir "$tmp/one" $flags >/dev/null 2>&1
		t1=$(now)
		for n in $names; do
			d=$tmp/data/$n
			# shellcheck disable=SC2086
			"$vkstat" --device "$dev" paco --cube "$d/cube.fits" --angles "$d/angles.fits" --psf "$d/psf.fits" \
				--truth "$d/truth.json" --out-dir "$tmp/sep/$n" $flags >/dev/null 2>&1
		done
		t2=$(now)
		a=$(echo "$t1 - $t0" | bc -l) b=$(echo "$t2 - $t1" | bc -l)
		one+=("$a") sep+=("$b")
		printf '| %s | %d | %.2f | %.2f | %.2f |\n' "$dev" "$r" "$a" "$b" "$(echo "$b / $a" | bc -l)"
	done
	ma=$(printf '%s\n' "${one[@]}" | median) mb=$(printf '%s\n' "${sep[@]}" | median)
	printf '| **%s** | **median** | **%.2f** | **%.2f** | **%.2f** |\n' "$dev" "$ma" "$mb" "$(echo "$mb / $ma" | bc -l)"
	# The outputs of both ways are the same maps: compare the detections.
	for n in $names; do
		cmp -s "$tmp/one/$n/detections.csv" "$tmp/sep/$n/detections.csv" || echo "warning: $n: detections.csv differs between the survey and vkstat paco" >&2
	done
done
