#!/usr/bin/env bash
# The README as a test: every ```sh block of README.md, top to bottom, in a
# fresh folder, with bin/vkstat first on PATH. A block right after the line
# <!-- readme-test: skip (why) --> is not run (make demo and make test
# themselves, a Slurm submission). `--device gpu` runs as `--device auto`
# (the CPU path or lavapipe where there is no GPU), so a machine without
# one runs every example. Each command line (with its \ continuations) runs
# in one bash in the order written, so a file an example needs must come
# from an earlier one; the first that fails stops the run, named by its
# README line. The examples' paths into the repository (examples/,
# shaders/, deploy/) are links to it.
#
#   scripts/readme-test.sh [--readme FILE] [--bin BIN] [--keep]
#   scripts/readme-test.sh --self-check    # a README with a broken example must fail
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
readme=$root/README.md bin=$root/bin/vkstat keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--readme) readme=$2; shift 2 ;;
	--bin) bin=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--self-check)
		tmp=$(mktemp -d)
		printf '# t\n\n```sh\nvkstat --version\n```\n\n<!-- readme-test: skip (never run) -->\n```sh\nfalse\n```\n\n```sh\nvkstat synth random --shape 3 --out a.npy\nvkstat reduce --in missing.npy --out-dir o/   # broken on purpose\n```\n' >"$tmp/README.md"
		out=$("$0" --readme "$tmp/README.md" --bin "$bin" 2>&1)
		rc=$?
		rm -rf "$tmp"
		if [ $rc -ne 0 ] && grep -q '^readme-test: README.md:14: vkstat reduce --in missing.npy' <<<"$out" && ! grep -q '^+ false' <<<"$out"; then
			echo "readme-test self-check: a broken example fails the run, named by its line; a skipped block is not run"
			exit 0
		fi
		echo "readme-test self-check FAILED (exit $rc):"
		echo "$out"
		exit 1
		;;
	*) echo "readme-test: unknown option $1" >&2; exit 2 ;;
	esac
done
[ -x "$bin" ] || { echo "readme-test: $bin is not built (make build)" >&2; exit 2; }
work=$(mktemp -d "${TMPDIR:-/tmp}/vkstat-readme.XXXXXX")
[ $keep -eq 1 ] || trap 'rm -rf "$work"' EXIT
mkdir -p "$work/.bin"
ln -s "$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")" "$work/.bin/vkstat"
for d in examples shaders deploy; do [ -e "$root/$d" ] && ln -s "$root/$d" "$work/$d"; done

# The command lines: "LINE<TAB>command", continuations joined.
python3 - "$readme" >"$work/.commands" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
skip, inblock, cur, start = False, False, None, 0
for i, l in enumerate(lines, 1):
    if not inblock:
        if l.startswith("<!-- readme-test: skip"):
            skip = True
        elif l.strip() == "```sh":
            inblock = True
        elif l.strip():
            skip = False
        continue
    if l.strip() == "```":
        inblock, skip = False, False
        continue
    if skip:
        continue
    if cur is None:
        if not l.strip() or l.lstrip().startswith("#"):
            continue
        cur, start = "", i
    text = re.sub(r"\s+#\s.*$", "", l) if not l.rstrip().endswith("\\") else l
    if text.rstrip().endswith("\\"):
        cur += text.rstrip()[:-1] + " "
        continue
    cur += text
    cmd = re.sub(r"--device gpu\b", "--device auto", cur.strip())
    print(f"{start}\t{cmd}")
    cur = None
PY
n=0
while IFS=$'\t' read -r line cmd; do
	n=$((n + 1))
	echo "== README.md:$line: $cmd"
	if ! (cd "$work" && PATH="$work/.bin:$PATH" bash -euo pipefail -c "$cmd"); then
		echo "readme-test: README.md:$line: $cmd: failed (in $work)" >&2
		[ $keep -eq 1 ] || trap - EXIT
		exit 1
	fi
done <"$work/.commands"
echo "readme-test: all $n example commands of $(basename "$readme") ran"
