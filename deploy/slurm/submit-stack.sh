#!/bin/bash
# Submits a vkstat stack to Slurm as SHARDS array tasks running
# stack.sbatch (each a share of the dates, --partial), and a merge job that
# starts once every task has succeeded. Prints the two job ids, array first.
#
#   deploy/slurm/submit-stack.sh LIST OUT SHARDS [sbatch options...]
#
# VKSTAT, VKSTAT_FLAGS and STACK_FLAGS are passed on to the tasks and the
# merge (see stack.sbatch).
set -euo pipefail
if [ $# -lt 3 ]; then
	echo "usage: $0 LIST OUT SHARDS [sbatch options...]" >&2
	exit 2
fi
list=$(realpath "$1")
out=$(realpath -m "$2")
shards=$3
shift 3
here=$(dirname "$(realpath "$0")")
mkdir -p "$out"
array=$(LIST=$list OUT=$out sbatch --parsable --array="1-$shards" --export=ALL \
	--output="$out/slurm-%A_%a.out" "$@" "$here/stack.sbatch")
array=${array%%;*}
parts=()
for i in $(seq "$shards"); do parts+=("'$out/parts/$i'"); done
merge=$(sbatch --parsable --dependency="afterok:$array" --job-name=vkstat-stack-merge \
	--output="$out/slurm-%j-merge.out" "$@" --wrap "exec '${VKSTAT:-vkstat}' merge --out-dir '$out' ${parts[*]}")
merge=${merge%%;*}
echo "$array $merge"
