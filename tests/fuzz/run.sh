#!/bin/sh
# The libFuzzer targets (tests/fuzz/fuzz_*.c), built with clang, AddressSanitizer and
# UndefinedBehaviorSanitizer into a tree of their own (MANCALA_FUZZ=ON).
#
#   sh tests/fuzz/run.sh build SOURCE_DIR FUZZ_BUILD_DIR
#   sh tests/fuzz/run.sh run SOURCE_DIR FUZZ_BUILD_DIR TARGET SECONDS
#
# `run` fuzzes one target for SECONDS, starting from the committed seeds (corpus/TARGET, never
# written) and the inputs found by earlier runs in FUZZ_BUILD_DIR/corpus/TARGET (where new ones
# go). It prints one summary line (executions, speed, coverage, corpus) and fails on a finding:
# the input that failed is saved as FUZZ_BUILD_DIR/artifacts/TARGET-crash-* (or leak-*,
# timeout-*, oom-*); replay it with FUZZ_BUILD_DIR/bin/fuzz_TARGET FILE. ctest runs `build` once
# (fuzz.build) and `run` for 60 s per target (fuzz.TARGET); tests/fuzz/long.sh is the long run
# (30 minutes a target by default) that grows the committed corpus.
set -eu

mode=$1
src=$2
build=$3

case "$mode" in
build)
  if ! command -v clang >/dev/null 2>&1; then
    echo "fuzz: clang is missing (deploy/install-deps.sh test installs it)" >&2
    exit 1
  fi
  cmake -S "$src" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
    -DMANCALA_FUZZ=ON -DMANCALA_WERROR=ON >/dev/null
  cmake --build "$build" -j "$(nproc)" >/dev/null
  echo "fuzz: targets built in $build/bin"
  ;;
run)
  target=$4
  seconds=$5
  exe="$build/bin/fuzz_$target"
  [ -x "$exe" ] || { echo "fuzz: $exe is missing (run: $0 build ...)" >&2; exit 1; }
  mkdir -p "$build/corpus/$target" "$build/artifacts" "$build/logs"
  case "$target" in
  proto) opts="-max_len=6000 -dict=$src/tests/fuzz/proto.dict" ;;
  http) opts="-max_len=1024 -dict=$src/tests/fuzz/http.dict" ;;
  store) opts="-max_len=65536" ;;
  *) opts="-max_len=4096" ;;
  esac
  log="$build/logs/$target.log"
  status=0
  # shellcheck disable=SC2086 # the options are split on purpose
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$exe" $opts -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$target-" "$build/corpus/$target" \
    "$src/tests/fuzz/corpus/$target" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | cut -d' ' -f2)
  corpus=$(find "$build/corpus/$target" -type f | wc -l)
  echo "fuzz $target: ${runs:-?} executions in ${seconds} s (${speed:-?}/s), coverage ${cov:-?} edges," \
    "$corpus inputs found beyond the seeds, status $status"
  if [ "$status" -ne 0 ]; then
    tail -n 60 "$log" >&2
    echo "fuzz $target: FINDING; the input is in $build/artifacts/ (log $log)" >&2
    exit 1
  fi
  ;;
*)
  echo "usage: $0 build SRC BUILD | run SRC BUILD TARGET SECONDS" >&2
  exit 2
  ;;
esac
