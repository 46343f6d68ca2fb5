#!/bin/sh
# gofmt-check.sh [DIR]: fail when gofmt would reformat a Go file under DIR
# (default: the current directory), listing the files. Exit 0: all
# formatted; 1: files need gofmt -w; 2: gofmt itself failed (a syntax
# error, say). Used by `make lint`; internal/lintcheck tests it.
dir=${1:-.}
if ! out=$(gofmt -l "$dir"); then
	echo "gofmt-check: gofmt -l $dir failed" >&2
	exit 2
fi
if [ -n "$out" ]; then
	echo "gofmt needed (run gofmt -w on these files):"
	echo "$out"
	exit 1
fi
