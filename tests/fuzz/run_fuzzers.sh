#!/usr/bin/env bash
# Runs the libFuzzer targets of a HEADSCOPE_FUZZ build for a fixed time each and prints,
# per target, the executions, coverage (edges, features), corpus size, slowest input and
# findings.
#   bash tests/fuzz/run_fuzzers.sh BUILD_DIR [SECONDS_PER_TARGET] [TARGET ...]
# Corpora grow in BUILD_DIR/fuzz-corpus/<target> (seeded from tests/data, tests/fuzz/seeds
# and tests/fuzz/regressions) and are kept between runs; a crash, leak, sanitizer report,
# input slower than 5 s or above 2 GB RSS is saved in BUILD_DIR/fuzz-findings/<target>/ and
# makes the script fail. Turn each finding into a regression: fix the bug, then copy the
# input to tests/fuzz/regressions/<target>/ (replayed by ctest in every build).
set -euo pipefail
cd "$(dirname "$0")/../.."

build=${1:?usage: run_fuzzers.sh BUILD_DIR [SECONDS] [TARGET ...]}
seconds=${2:-30}
shift $(( $# >= 2 ? 2 : 1 ))
targets=("$@")
((${#targets[@]})) || targets=(npy safetensors mha_loader session tokenize gpt2_config gpt2_vocab gpt2_bpe gpt2_checkpoint tokenizer_json rotary_checkpoint model_config)

seeds_of() {
  case "$1" in
    npy)         find tests/data -name '*.npy' ;;
    safetensors|mha_loader) find tests/data -name '*.safetensors' ;;
    session)     find tests/fuzz/seeds/session -type f ;;
    tokenize|gpt2_bpe) find tests/fuzz/seeds/tokenize -type f ;;
    gpt2_checkpoint) find tests/data/gpt2 -name model.safetensors ;;
    rotary_checkpoint) find tests/data/rotary -name '*.safetensors' ;;
    *)           [ -d "tests/fuzz/seeds/$1" ] && find "tests/fuzz/seeds/$1" -type f ;;
  esac
  [ -d "tests/fuzz/regressions/$1" ] && find "tests/fuzz/regressions/$1" -type f
  return 0
}
dict_of() {
  case "$1" in
    npy) echo tests/fuzz/npy.dict ;;
    safetensors|mha_loader|session|gpt2_config|gpt2_vocab|gpt2_checkpoint|rotary_checkpoint|model_config) echo tests/fuzz/json.dict ;;
    *) [ -f "tests/fuzz/$1.dict" ] && echo "tests/fuzz/$1.dict" ;;
  esac
  return 0
}

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
failed=0
summary=()
for t in "${targets[@]}"; do
  binary="$build/tests/fuzz/fuzz_$t"
  [ -x "$binary" ] || { echo "no $binary: configure with -DHEADSCOPE_FUZZ=ON and clang" >&2; exit 2; }
  corpus="$build/fuzz-corpus/$t" findings="$build/fuzz-findings/$t"
  mkdir -p "$corpus" "$findings"
  while IFS= read -r seed; do cp -n "$seed" "$corpus/seed-$(basename "$seed")-$(cksum <"$seed" | cut -d' ' -f1)"; done < <(seeds_of "$t")
  dict=$(dict_of "$t")
  log="$build/fuzz-findings/$t.log"
  echo "== fuzzing $t for ${seconds}s"
  status=0
  "$binary" "$corpus" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$findings/" ${dict:+-dict="$dict"} >"$log" 2>&1 || status=$?
  last=$(grep -E '^#[0-9]+' "$log" | tail -1 || true)
  stat() { grep -E "^stat::$1:" "$log" | awk '{print $2}' | tail -1; }
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$last")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$last")
  units=$(sed -nE 's/.* corp: ([0-9]+)\/.*/\1/p' <<<"$last")
  found=$(find "$findings" -type f | wc -l)
  summary+=("$(printf '%-12s %12s %8s %8s %8s %8s %10s %8s' "$t" "$(stat number_of_executed_units)" \
    "$(stat average_exec_per_sec)" "${cov:-?}" "${ft:-?}" "${units:-?}" "$(stat slowest_unit_time_sec)" "$found")")
  if [ "$status" -ne 0 ] || [ "$found" -ne 0 ]; then
    failed=1
    echo "!! $t: a finding (exit $status); the input is in $findings, the report in $log:" >&2
    grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$log" | head -20 >&2 || true
  fi
done
printf '\n%-12s %12s %8s %8s %8s %8s %10s %8s\n' target executions exec/s cov ft corpus slowest_s findings
printf '%s\n' "${summary[@]}"
exit "$failed"
