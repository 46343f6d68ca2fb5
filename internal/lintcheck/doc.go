// Package lintcheck holds the tests of the repository's lint scripts and
// Makefile targets (scripts/gofmt-check.sh, make lint-gofmt): a lint that
// passes unformatted code is a bug no other test finds; and the tests of
// DESIGN.md's rules that span packages: no error below cli/ names a
// command-line flag, and imports run down only (engine on leaf helpers and tensor,
// device/ on engine, pipelines on both, cli on top).
package lintcheck
