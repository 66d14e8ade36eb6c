#!/bin/sh
# The long run of the fuzz targets (issue 25): builds the clang tree (ASan, UBSan, coverage; the
# same tree as tests/fuzz/run.sh) and fuzzes each target for MINUTES (default 30), PARALLEL
# targets at a time (default 2: one core each), then grows the committed corpus with what it
# found and prints a summary line per target.
#
#   sh tests/fuzz/long.sh [MINUTES] [TARGET...]        (targets: engine proto http store)
#
# Environment: FUZZ_BUILD (default build-fuzz in this checkout), FUZZ_PARALLEL (default 2),
# FUZZ_SECONDS (overrides MINUTES, for a quick try),
# FUZZ_NICE (default 19: the long run gives way to everything else on the machine).
#
# Each target runs in libFuzzer's fork mode with one worker (-fork=1): a crash, timeout or leak
# is saved and counted and the run goes on, so one finding does not end the 30 minutes. The
# working corpus is FUZZ_BUILD/long/TARGET (seeded from tests/fuzz/corpus/TARGET, kept between
# runs). At the end the committed corpus tests/fuzz/corpus/TARGET is minimised over itself and
# what was found (-merge=1): its named inputs (seeds, past findings) stay, and the inputs named
# by their SHA-1 become the smallest set that keeps every feature, so the corpus grows with the
# coverage and not with the hours; ctest fuzz.replay_TARGET replays it in every build. Findings are in FUZZ_BUILD/artifacts/TARGET-*; the logs in FUZZ_BUILD/logs/.
# Exit status: 1 when any target had a finding.
set -eu

top=$(cd "$(dirname "$0")/../.." && pwd)
build=${FUZZ_BUILD:-$top/build-fuzz}
minutes=${1:-30}
[ $# -gt 0 ] && shift
targets=${*:-engine proto http store}
parallel=${FUZZ_PARALLEL:-2}
nice=${FUZZ_NICE:-19}
seconds=${FUZZ_SECONDS:-$((minutes * 60))}

if ! command -v clang >/dev/null 2>&1; then
  echo "fuzz: clang is missing (deploy/install-deps.sh test installs it)" >&2
  exit 1
fi
nice -n "$nice" cmake -S "$top" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
  -DMANCALA_FUZZ=ON -DMANCALA_WERROR=ON >/dev/null
nice -n "$nice" cmake --build "$build" -j "$parallel" >/dev/null
mkdir -p "$build/artifacts" "$build/logs"

# The options of each target, as tests/fuzz/run.sh gives them.
options() {
  case "$1" in
  proto) echo "-max_len=6000 -dict=$top/tests/fuzz/proto.dict" ;;
  http) echo "-max_len=1024 -dict=$top/tests/fuzz/http.dict" ;;
  store) echo "-max_len=65536" ;;
  *) echo "-max_len=4096" ;;
  esac
}

# The coverage of a corpus: "cov ft" of libFuzzer's INITED line after running every input once.
corpus_cov() {
  # shellcheck disable=SC2046
  ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 nice -n "$nice" "$build/bin/fuzz_$1" \
    $(options "$1") -runs=0 -timeout=30 "$2" 2>&1 | sed -n 's/.*INITED cov: \([0-9]*\) ft: \([0-9]*\).*/\1 \2/p' | tail -n 1
}

# Fuzzes one target; writes its summary to FUZZ_BUILD/logs/TARGET.summary.
fuzz_one() {
  t=$1
  exe="$build/bin/fuzz_$t"
  work="$build/long/$t"
  log="$build/logs/$t.long.log"
  seeds="$top/tests/fuzz/corpus/$t"
  mkdir -p "$work"
  before_files=$(find "$seeds" -type f | wc -l)
  before_kib=$(du -sk "$seeds" | cut -f1)
  cov_before=$(corpus_cov "$t" "$seeds")
  started=$(date +%s)
  # shellcheck disable=SC2046 # the options are split on purpose
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    nice -n "$nice" "$exe" $(options "$t") -fork=1 -ignore_crashes=1 -ignore_timeouts=1 \
    -ignore_ooms=1 -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
    -artifact_prefix="$build/artifacts/$t-" "$work" "$seeds" >"$log" 2>&1 || true
  elapsed=$(($(date +%s) - started))
  # Fork mode's progress lines: "#EXECS: cov: N ft: N corp: N exec/s N oom/timeout/crash: a/b/c ..."
  last=$(grep -E '^#[0-9]+: cov: ' "$log" | tail -n 1)
  execs=$(echo "$last" | sed -n 's/^#\([0-9]*\):.*/\1/p')
  cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
  otc=$(echo "$last" | sed -n 's/.* oom\/timeout\/crash: \([0-9\/]*\).*/\1/p')
  findings=$(find "$build/artifacts" -type f -name "$t-*" -newer "$log.start" 2>/dev/null | wc -l)
  # The committed corpus minimised: the named inputs (hand-written seeds, past findings) always
  # stay, and the smallest set of inputs (committed or found) that covers every edge they do not
  # (-merge=1 into a directory holding only them; edges without hit counts, -use_counters=0, so
  # that the corpus follows the coverage, not the hours) replaces the inputs named by their hash.
  merged="$build/long/$t.merged"
  rm -rf "$merged"
  mkdir -p "$merged"
  find "$seeds" -type f -regextype posix-extended ! -regex '.*/[0-9a-f]{40}' -exec cp {} "$merged/" \;
  # shellcheck disable=SC2046
  if ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1 \
    nice -n "$nice" "$exe" $(options "$t") -merge=1 -use_counters=0 -timeout=30 \
    -rss_limit_mb=2048 "$merged" "$seeds" "$work" >"$build/logs/$t.merge.log" 2>&1; then
    find "$seeds" -type f -regextype posix-extended -regex '.*/[0-9a-f]{40}' -delete
    find "$merged" -type f -regextype posix-extended -regex '.*/[0-9a-f]{40}' -exec cp {} "$seeds/" \;
  else
    echo "fuzz $t: the merge failed (see $build/logs/$t.merge.log); corpus left as it was" >&2
  fi
  after_files=$(find "$seeds" -type f | wc -l)
  after_kib=$(du -sk "$seeds" | cut -f1)
  cov_after=$(corpus_cov "$t" "$seeds")
  echo "fuzz $t: ${execs:-?} executions in ${elapsed} s ($(( ${execs:-0} / (elapsed > 0 ? elapsed : 1) ))/s)," \
    "fuzzer's last cov ${cov:-?} ft ${ft:-?} corp ${corp:-?};" \
    "oom/timeout/crash ${otc:-?}, ${findings} findings saved;" \
    "committed corpus ${before_files} -> ${after_files} inputs (${before_kib} -> ${after_kib} KiB)," \
    "its coverage (cov ft) ${cov_before:-?} -> ${cov_after:-?}" \
    >"$build/logs/$t.summary"
}

# The targets, PARALLEL at a time (their names split on purpose: a list of words).
# shellcheck disable=SC2086
set -- $targets
while [ $# -gt 0 ]; do
  batch=""
  i=0
  while [ $# -gt 0 ] && [ "$i" -lt "$parallel" ]; do
    batch="$batch $1"
    shift
    i=$((i + 1))
  done
  for t in $batch; do
    [ -x "$build/bin/fuzz_$t" ] || { echo "fuzz: no target $t" >&2; exit 2; }
    : >"$build/logs/$t.long.log.start"
    fuzz_one "$t" &
  done
  wait
  for t in $batch; do cat "$build/logs/$t.summary"; done
done

status=0
for t in $targets; do
  if [ -n "$(find "$build/artifacts" -type f -name "$t-*" -newer "$build/logs/$t.long.log.start")" ]; then
    echo "fuzz $t: FINDINGS:" >&2
    find "$build/artifacts" -type f -name "$t-*" -newer "$build/logs/$t.long.log.start" >&2
    status=1
  fi
done
exit $status
