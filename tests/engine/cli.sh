#!/bin/sh
# Tests of the `mancala` command-line tool: perft output, replay output, bad arguments (exit 2 and
# a usage message on stderr) and bad records (exit 1 and a message on stderr). Expected values are
# worked by hand (see test_kalah.c, test_oware.c, test_congkak.c). MANCALA_TOOL is the tool's
# absolute path.
set -u

tool=${MANCALA_TOOL:?set MANCALA_TOOL to the absolute path of the mancala tool}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
checks=0

fail() {
  failures=$((failures + 1))
  printf 'FAIL: %s\n' "$*" >&2
}

# expect_output STATUS EXPECTED_STDOUT ARGS...: exact stdout and exit status.
expect_output() {
  want_status=$1
  want=$2
  shift 2
  checks=$((checks + 1))
  "$tool" "$@" >"$tmp/out" 2>"$tmp/err"
  status=$?
  printf '%s\n' "$want" >"$tmp/want"
  if [ "$status" -ne "$want_status" ] || ! cmp -s "$tmp/out" "$tmp/want"; then
    fail "mancala $*: exit $status (expected $want_status), stdout:"
    sed 's/^/    /' "$tmp/out" >&2
    printf '  expected:\n' >&2
    sed 's/^/    /' "$tmp/want" >&2
  fi
}

# expect_error STATUS ARGS...: the exit status, nothing on stdout, a message on stderr; for
# status 2 the message is a usage message.
expect_error() {
  want_status=$1
  shift
  checks=$((checks + 1))
  "$tool" "$@" >"$tmp/out" 2>"$tmp/err"
  status=$?
  if [ "$status" -ne "$want_status" ]; then
    fail "mancala $*: exit $status, expected $want_status"
  elif [ ! -s "$tmp/err" ]; then
    fail "mancala $*: nothing on stderr"
  elif [ "$want_status" -eq 2 ] && ! grep -qi 'usage' "$tmp/err"; then
    fail "mancala $*: no usage message on stderr"
  elif [ -s "$tmp/out" ]; then
    fail "mancala $*: unexpected stdout: $(head -c 200 "$tmp/out")"
  fi
}

# ---- perft: one line "D COUNT" per depth on stdout, timing on stderr ----
# Kalah 6x4: 6 moves; house 3 earns an extra turn (5 moves), the other 5 give North 6: 35.
expect_output 0 '1 6
2 35' perft kalah 2
checks=$((checks + 1))
"$tool" perft kalah 1 >/dev/null 2>"$tmp/err"
[ -s "$tmp/err" ] || fail "perft prints no timing on stderr"
# Oware 1x1 ends by repetition after 5 moves; with grand_slam=capture after 1 (majority).
expect_output 0 '1 1
2 1
3 1
4 1
5 1
6 0' perft oware 6 --houses 1 --seeds 1
expect_output 0 '1 1
2 0' perft oware 2 --houses 1 --seeds 1 --grand-slam capture
expect_output 0 '1 1
2 1
3 1' perft oware 3 --houses 1 --seeds 1 --grand-slam forbidden
expect_output 0 '1 1
2 0' perft kalah 2 --houses 1 --seeds 1 --empty-capture
# Congkak 1x1: one move per round; a match has nine (drawn) rounds.
expect_output 0 '1 1
2 0' perft congkak 2 --houses 1 --seeds 1 --rounds single
expect_output 0 '1 1
2 1
3 1
4 1
5 1
6 1
7 1
8 1
9 1
10 0' perft congkak 10 --houses 1 --seeds 1 --rounds match --lap-capture
expect_output 0 '1 7' perft congkak 1

# ---- replay: position, ply, result ----
expect_output 0 'position 4 4 0 5 5 0 (2) 0 6 6 6 5 5 (0) south
ply 3
result none' replay kalah "3 6 1"
expect_output 0 'position 4 4 4 4 4 4 (0) 4 4 4 4 4 4 (0) south
ply 0
result none' replay kalah ""
# South 3 ends in the store: South to move again.
expect_output 0 'position 4 4 0 5 5 5 (1) 4 4 4 4 4 4 (0) south
ply 1
result none' replay kalah --houses 6 --seeds 4 "3"
# Congkak relay across both sides, then a capture (test_congkak.c); a round end in a match.
expect_output 0 'position 4 0 4 (6) 0 0 4 (0) north
ply 1
result none' replay congkak --houses 3 --seeds 3 "2"
expect_output 0 'position 1 1 (1) x 1 (0) north round 2 first north
ply 3
result none' replay congkak --houses 2 --seeds 1 --rounds match "2 1 2"
# Issue 9: burning is decided afresh at every round (Congkak 7). The default 7x7 match below ends
# round 1 (move 16) with South's store at 27 and North's at 71 (the reference model of the rule book,
# reference.mjs): South fills houses 7, 6, 5 (21 seeds, 6 left) and burns houses 1-4; North fills
# all 7 (49, 22 left). Round 2 ends at move 29 with 60 to 38; North lost and starts round 3.
# South's 60 fill all 7 houses (49, 11 left): houses 1-4, burnt in round 2, are played again.
# North's 38 fill houses 7 down to 3 (35, 3 left); houses 1 and 2 are burnt.
issue9="6 1 7 6 5 6 2 7 7 5 1 3 5 6 6 7 6 5 5 2 7 6 7 2 6 5 6 6 2"
expect_output 0 'position 7 7 7 7 7 7 7 (11) x x 7 7 7 7 7 (3) north round 3 first north
ply 29
result none' replay congkak --rounds match "$issue9"
# The same game under the old rule of stored games (a burnt house stays burnt): South's houses 1-4
# stay burnt and 60 - 21 = 39 seeds stay idle in its store.
expect_output 0 'position x x x x 7 7 7 (39) x x 7 7 7 7 7 (3) north round 3 first north
ply 29
result none' replay congkak --rounds match --burn match "$issue9"
# Round 2 of both (move 16 ends round 1; North won it 71 to 27): the same under either rule.
expect_output 0 'position x x x x 7 7 7 (6) 7 7 7 7 7 7 7 (22) south round 2 first south
ply 16
result none' replay congkak --rounds match --burn round "6 1 7 6 5 6 2 7 7 5 1 3 5 6 6 7"

# Finished games: the side to move is meaningless, so only the start of the line is checked.
# expect_end PITS PLY RESULT ARGS...
expect_end() {
  pits=$1
  ply=$2
  result=$3
  shift 3
  checks=$((checks + 1))
  "$tool" "$@" >"$tmp/out" 2>"$tmp/err"
  status=$?
  line1=$(sed -n 1p "$tmp/out")
  case "$line1" in
  "position $pits "*) ok=1 ;;
  *) ok=0 ;;
  esac
  if [ "$status" -ne 0 ] || [ "$ok" -ne 1 ] || [ "$(sed -n 2p "$tmp/out")" != "ply $ply" ] ||
    [ "$(sed -n 3p "$tmp/out")" != "$result" ] || [ "$(wc -l <"$tmp/out")" -ne 3 ]; then
    fail "mancala $*: exit $status, stdout:"
    sed 's/^/    /' "$tmp/out" >&2
    printf '  expected: position %s ... | ply %s | %s\n' "$pits" "$ply" "$result" >&2
  fi
}
expect_end '0 (1) 0 (1)' 1 'result draw no_seeds 1 1' replay kalah --houses 1 --seeds 1 "1"
expect_end '0 (0) 0 (2)' 5 'result north repetition 0 2' \
  replay oware --houses 1 --seeds 1 "1 1 1 1 1"
expect_end '0 (2) 0 (0)' 1 'result south majority 2 0' \
  replay oware --houses 1 --seeds 1 --grand-slam capture "1"
expect_end '0 0 (3) x 0 (1)' 11 'result south no_seeds 3 1' \
  replay congkak --houses 2 --seeds 1 --rounds match "2 1 2 2 2 2 2 2 2 2 2"

# ---- bad arguments: exit 2 with a usage message ----
expect_error 2
expect_error 2 frobnicate
expect_error 2 perft
expect_error 2 perft chess 2
expect_error 2 perft kalah
expect_error 2 perft kalah 0
expect_error 2 perft kalah 65
expect_error 2 perft kalah x
expect_error 2 perft kalah 2x
expect_error 2 perft kalah 2 --houses 10
expect_error 2 perft kalah 2 --houses 0
expect_error 2 perft kalah 2 --seeds 13
expect_error 2 perft kalah 2 --seeds
expect_error 2 perft kalah 2 --houses
expect_error 2 perft kalah 2 --bogus
expect_error 2 perft kalah 2 --lap-capture
expect_error 2 perft kalah 2 --rounds match
expect_error 2 perft kalah 2 --grand-slam capture
expect_error 2 perft oware 2 --empty-capture
expect_error 2 perft oware 2 --grand-slam sometimes
expect_error 2 perft congkak 2 --rounds double
expect_error 2 perft congkak 2 --empty-capture
expect_error 2 perft congkak 2 --burn match
expect_error 2 perft congkak 2 --rounds single --burn match
expect_error 2 perft congkak 2 --rounds match --burn forever
expect_error 2 perft congkak 2 --rounds match --burn
expect_error 2 perft kalah 2 --burn round
expect_error 2 replay
expect_error 2 replay kalah
expect_error 2 replay chess "1 2"
expect_error 2 replay kalah --houses 10 "1"

# ---- bad records: exit 1 with a message ----
expect_error 1 replay kalah "3 3"
expect_error 1 replay kalah "3 x"
expect_error 1 replay kalah "0"
expect_error 1 replay kalah "7"
expect_error 1 replay kalah --houses 3 "4"
expect_error 1 replay oware --houses 1 --seeds 1 "1 1 1 1 1 1"
# The message names the offending place: the second move of "3 3" (0-based offset 2, 1-based 3).
checks=$((checks + 1))
"$tool" replay kalah "3 3" >/dev/null 2>"$tmp/err"
grep -q '[23]' "$tmp/err" ||
  fail "the message for \"3 3\" does not name its place: $(cat "$tmp/err")"

printf 'cli: %d checks, %d failed\n' "$checks" "$failures"
[ "$failures" -eq 0 ]
