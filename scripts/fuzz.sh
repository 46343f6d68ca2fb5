#!/usr/bin/env bash
# fuzz.sh [FUZZTIME]: run every fuzz target of the repository (each
# func FuzzXxx in a _test.go file) for FUZZTIME (default 10s) each.
#
# go test runs one fuzz target per invocation, and only with -run '^$' does
# it skip the package's other tests. Minimising is off
# (-fuzzminimizetime=0): by default it may take 60 s for each new input,
# which left FuzzReadFITS 15 executions in a 60 s run; a failure still
# writes its input to the package's testdata/fuzz/ to rerun with go test.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-10s}
go=${GO:-go}

targets=$(grep -rHo --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*' . | sed 's/:func /:/' | sort)
if [ -z "$targets" ]; then
	echo "fuzz.sh: no fuzz targets found" >&2
	exit 1
fi
failed=""
for t in $targets; do
	pkg=$(dirname "${t%%:*}")
	name=${t##*:}
	echo "== $name ($pkg, $fuzztime)"
	if ! "$go" test "$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -fuzzminimizetime 0; then
		failed="$failed $name"
	fi
done
if [ -n "$failed" ]; then
	echo "fuzz.sh: failed:$failed" >&2
	exit 1
fi
