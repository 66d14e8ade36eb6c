#!/bin/sh
# Tests of the `mancala` command-line tool: perft, replay, solve, hint, analyse, match and egtb
# output, bad arguments (exit 2 and a usage message on stderr) and bad records or files (exit 1
# and a message on stderr). Expected values are worked by hand (see test_kalah.c, test_oware.c,
# test_congkak.c and the comments below). MANCALA_TOOL is the tool's absolute path.
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

# ---- solve: "value N" first, then the principal line and how it ends ----
# Kalah 1x1: South sows its seed into its store, its side is empty: North sweeps 1, 1-1.
expect_output 0 'value 0
line 1
result draw no_seeds 1 1' solve kalah --houses 1 --seeds 1 --no-egtb
# Kalah 1x3: store, North's house (4), back into its emptied house: captures 1+4: 6-0.
expect_output 0 'value +6
line 1
result south no_seeds 6 0' solve kalah --houses 1 --seeds 3
# Kalah 1x2: store, North's house (3); South's side is empty, North sweeps 3: 1-3.
expect_output 0 'value -2
line 1
result north no_seeds 1 3' solve kalah --houses 1 --seeds 2 --empty-capture
# Kalah 2x1: house 2 into the store (again), house 1 into the emptied house 2 facing North's 1:
# 3 in the store, North sweeps 1: +2. House 1 first lets North make the last capture-free move
# that leaves South to empty its side: -2.
expect_output 0 'value +2
line 2 1
result south no_seeds 3 1' solve kalah --houses 2 --seeds 1
# Oware 1x1: grand slams capture nothing; the chase repeats a position a third time: North
# takes its 2 seeds.
expect_output 0 'value -2
line 1 1 1 1 1
result north repetition 0 2' solve oware --houses 1 --seeds 1 --search
# The same through the retrograde analysis (Oware's default), the board as MxS: the value and a
# best first move. With grand_slam capture South's first move takes North's 2 of 2: +2.
expect_output 0 'value -2
best 1' solve oware 1x1
expect_output 0 'value +2
best 1' solve oware 1x1 --grand-slam capture
# Oware 1x2: the same chase with 4 seeds: -4 (tests/engine/test_retro.c works it through).
expect_output 0 'value -4
best 1' solve oware 1x2
expect_error 2 solve oware 0x1
expect_error 2 solve oware 3x
# Congkak 1x3: store, North's house (4), its emptied house: captures 4+1: 6-0.
expect_output 0 'value +6
line 1
result south no_seeds 6 0' solve congkak --houses 1 --seeds 3
# A time limit that stops the solver: exit 1, a message, nothing on stdout.
expect_error 1 solve kalah --max-ms 0 --no-egtb

# ---- hint: the best move and its value ----
expect_output 0 'move 2 value +2 exact
line 2 1' hint kalah --houses 2 --seeds 1 ""
# After "1 1 1 1" the only move repeats a position a third time: -2 for South (the history
# counts; without it the value would be +2).
expect_output 0 'move 1 value -2 exact
line 1' hint oware --houses 1 --seeds 1 "1 1 1 1"
# An evaluation says its depth.
checks=$((checks + 1))
"$tool" hint kalah --depth 3 "" >"$tmp/out" 2>"$tmp/err"
grep -Eq '^move [1-6] value [+-][0-9]+\.[0-9]{2} depth 3$' "$tmp/out" ||
  fail "hint --depth 3: $(cat "$tmp/out")"

# ---- analyse: one line per ply ----
expect_output 0 'ply 1 south played 2 +2 best 2 +2 exact
ply 2 south played 1 +2 best 1 +2 exact' analyse kalah --houses 2 --seeds 1 "2 1"

# ---- match: wins, draws and losses add up to the games ----
checks=$((checks + 1))
"$tool" match --a 2 --b 1 --games 6 kalah --houses 3 --seeds 3 >"$tmp/out" 2>"$tmp/err"
status=$?
line=$(grep '^wins ' "$tmp/out")
# shellcheck disable=SC2086 # the words of the line are the fields
set -- $line
if [ "$status" -ne 0 ] || [ "$(($2 + $4 + $6))" -ne 6 ]; then
  fail "match: exit $status, $(cat "$tmp/out")"
fi

# ---- egtb: build, info, verify, a corrupt file ----
dir="$tmp/tables"
mkdir "$dir"
expect_error 1 egtb verify --dir "$dir"
checks=$((checks + 1))
"$tool" egtb build --dir "$dir" kalah --houses 3 --max-seeds 8 >"$tmp/out" 2>"$tmp/err" ||
  fail "egtb build: $(cat "$tmp/err")"
[ -f "$dir/kalah-3-standard.egtb" ] || fail "egtb build wrote no kalah-3-standard.egtb"
expect_output 0 'kalah-3-standard.egtb: ok' egtb verify --dir "$dir"
checks=$((checks + 1))
if ! "$tool" egtb info --dir "$dir" >"$tmp/out" 2>&1 ||
  ! grep -q '^kalah-3-standard.egtb: 8 seeds' "$tmp/out"; then
  fail "egtb info: $(cat "$tmp/out")"
fi
printf 'x' | dd of="$dir/kalah-3-standard.egtb" bs=1 seek=500 conv=notrunc 2>/dev/null
expect_output 1 'kalah-3-standard.egtb: corrupt file' egtb verify --dir "$dir"
# Building again replaces the corrupt file.
checks=$((checks + 1))
"$tool" egtb build --dir "$dir" kalah --houses 3 --max-seeds 8 >/dev/null 2>&1 ||
  fail "egtb build over a corrupt file failed"
expect_output 0 'kalah-3-standard.egtb: ok' egtb verify --dir "$dir"

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

expect_error 2 solve chess
expect_error 2 solve kalah --tt 0
expect_error 2 solve kalah extra
expect_error 2 hint kalah
expect_error 2 hint kalah --level 9 ""
expect_error 2 hint kalah --depth 0 ""
expect_error 2 analyse kalah
expect_error 2 match --a 1 kalah
expect_error 2 match --a 7 --b 1 --games 2 kalah
expect_error 2 match --a 1 --b 1 --games 1 kalah
expect_error 2 bench extra
expect_error 2 egtb
expect_error 2 egtb frob
expect_error 2 egtb build congkak
expect_error 2 egtb build kalah --max-seeds 0

# ---- bad records: exit 1 with a message ----
expect_error 1 replay kalah "3 3"
expect_error 1 replay kalah "3 x"
expect_error 1 replay kalah "0"
expect_error 1 replay kalah "7"
expect_error 1 replay kalah --houses 3 "4"
expect_error 1 replay oware --houses 1 --seeds 1 "1 1 1 1 1 1"
expect_error 1 hint kalah "3 3"
expect_error 1 hint oware --houses 1 --seeds 1 "1 1 1 1 1"
expect_error 1 egtb verify --dir "$tmp/no-such-directory"
# The message names the offending place: the second move of "3 3" (0-based offset 2, 1-based 3).
checks=$((checks + 1))
"$tool" replay kalah "3 3" >/dev/null 2>"$tmp/err"
grep -q '[23]' "$tmp/err" ||
  fail "the message for \"3 3\" does not name its place: $(cat "$tmp/err")"

printf 'cli: %d checks, %d failed\n' "$checks" "$failures"
[ "$failures" -eq 0 ]
