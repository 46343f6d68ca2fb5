#!/usr/bin/env bash
# vkstat against NumPy from input files to output files (issue 24): each
# workload as one vkstat command and one NumPy script, paired runs, medians;
# writes docs/benchmarks/e2e.md. bench/e2e/run.py says how it measures.
#
#   scripts/bench-e2e.sh [--bin bin/vkstat] [--device cpu|gpu|...] [--runs 7 | --quick] [--baseline OLD-BIN]
#                        [--only map,sum,stack-axis0,rows-axis-1,cov,paco,sar,latent]
#                        [--out FILE.md | --out -] [--note TEXT]
#
# NumPy runs under /usr/bin/python3. The full run takes about 3 minutes on
# 2 cores (most of it NumPy's PACO); --quick about half that.
set -euo pipefail
cd "$(dirname "$0")/.."
py=/usr/bin/python3
[ -x $py ] || py=python3
exec "$py" bench/e2e/run.py "$@"
