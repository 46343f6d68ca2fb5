#!/usr/bin/env bash
# fuzz.sh [FUZZTIME]: run every fuzz target of the repository (each
# func FuzzXxx in a _test.go file) for FUZZTIME each: a count of inputs
# (default 20000x) or a duration (10s).
#
# A count is the default because Go before 1.27 can fail a duration-bound
# run at its deadline with a bare "context deadline exceeded" and no failing
# input (a race in its fuzzing coordinator, go.dev/issue/75804); it struck
# FuzzReadVector in CI here. 20,000 inputs take 3-8 s for most targets and
# about 25 s for the gzip one on two cores.
#
# go test runs one fuzz target per invocation, and only with -run '^$' does
# it skip the package's other tests. Minimising is off
# (-fuzzminimizetime=0): by default it may take 60 s for each new input,
# which left FuzzReadFITS 15 executions in a 60 s run; a failure still
# writes its input to the package's testdata/fuzz/ to rerun with go test.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime=${1:-20000x}
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
