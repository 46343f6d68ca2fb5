#!/bin/sh
# Prints vkstat's version, one string that PEP 440 (the wheel) and semver
# both read: the release in the VERSION file (0.1.0), alone on the commit
# tagged v<VERSION> with a clean tree; elsewhere that release with the
# commit as a local part, 0.1.0+ga6372c6 (.dirty when tracked files have
# changes), so a build from a clone without tags still names its release
# and its commit; the release alone outside git (a source archive).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
v=$(tr -d ' \t\r\n' <"$root/VERSION")
if ! hash=$(git -C "$root" rev-parse --short=7 HEAD 2>/dev/null); then
	echo "$v"
	exit 0
fi
dirty=
git -C "$root" diff --quiet HEAD -- 2>/dev/null || dirty=.dirty
if [ -z "$dirty" ] && git -C "$root" tag --points-at HEAD 2>/dev/null | grep -qx "v$v"; then
	echo "$v"
else
	echo "$v+g$hash$dirty"
fi
