#!/usr/bin/env bash
# Checks every example shader against its NumPy-made expected output:
#
#   examples/shaders/check.sh VKSTAT [GLOBAL FLAGS...]
#   examples/shaders/check.sh bin/vkstat --validate --device all --repeat 10
#
# Each check exits 1 on a mismatch; this script exits 1 if any did. With
# --device all, each run also reports the largest difference between the
# devices' outputs. `make check-examples` and scripts/gpu-run.sh call it.
set -uo pipefail
vk=$(realpath "${1:?usage: $0 VKSTAT [GLOBAL FLAGS...]}")
shift
cd "$(dirname "$0")" || exit 2
# --repeat and --timeout belong to the subcommand; the rest are global.
global=() extra=()
while [ $# -gt 0 ]; do
	case $1 in
	--repeat=* | --timeout=*) extra+=("$1"); shift ;;
	--repeat | --timeout) extra+=("$1" "$2"); shift 2 ;;
	*) global+=("$1"); shift ;;
	esac
done
status=0
check() {
	echo "== vkstat ${global[*]} shader check $*"
	"$vk" "${global[@]}" shader check "$@" "${extra[@]}" || status=1
}
reduce=(-b data=reduce_in.npy -b sums=float32:16 --push n=4000 --push chunk=250 --groups 16)
check saxpy.comp -b x=saxpy_x.npy -b y=saxpy_y.npy --push a=2.5 --push n=1000 --global 1000 -e y=saxpy_expected.npy
check reduce_shared.comp "${reduce[@]}" -e sums=reduce_expected.npy
check subgroup_sum.comp "${reduce[@]}" -e sums=reduce_expected.npy --against reduce_shared.comp
check tile_transpose.comp -b src=tile_in.npy -b dst=float32:48x40 --spec TILE=8 --push rows=40 --push cols=48 --global 48,40 -e dst=tile_expected.npy
check tile_transpose.comp -b src=tile_in.npy -b dst=float32:48x40 --push rows=40 --push cols=48 --global 48,40 -e dst=tile_expected.npy
check reduce_memory_model.comp "${reduce[@]}" -e sums=reduce_expected.npy
check uniform_params.comp -b x=saxpy_x.npy -b y=float32:1000 -u a=2 -u n=999 -u b=0.5 --global 1000 -e y=uniform_expected.npy
[ $status -eq 0 ] && echo "examples: all passed" || echo "examples: SOME FAILED"
exit $status
