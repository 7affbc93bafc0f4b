#!/usr/bin/env bash
# The test suite in its two parts, as `make test` runs it: the parallel part (TEST_WORKERS
# workers), then the tests marked `exclusive` (they load the machine on purpose) alone. The
# exclusive part runs even when the parallel one failed, and the end says how each part went:
# a failure in one never hides the other's result. Exit status: 0 only when both passed.
# Each skipped test is listed with its reason (-rs), so the CI log says why.
#
#   PYTHON        the interpreter with pytest (default .venv/bin/python)
#   TEST_WORKERS  workers for the parallel part (default 3)
#   extra arguments are passed to both pytest runs
set -u
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-.venv/bin/python}
TEST_WORKERS=${TEST_WORKERS:-3}

part() {
    # part NAME PYTEST-ARGS...: run one part, remember its status and time
    name=$1
    shift
    start=$(date +%s)
    "$PYTHON" -m pytest -q -rs -p no:cacheprovider "$@"
    status=$?
    took=$(($(date +%s) - start))
    case $status in
    0) verdict="passed" ;;
    5) verdict="passed (no tests selected)"; status=0 ;;
    *) verdict="FAILED (pytest exit $status)" ;;
    esac
    summary="${summary}  ${name}: ${verdict} in ${took} s"$'\n'
    return $status
}

summary=""
failed=0
part "parallel part (-n $TEST_WORKERS)" -n "$TEST_WORKERS" --dist loadfile -m "not exclusive" "$@" || failed=1
part "exclusive part (alone)" -m exclusive "$@" || failed=1
printf '\ntest suite:\n%s' "$summary"
exit $failed
