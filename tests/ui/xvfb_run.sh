#!/bin/sh
# Runs a test program on an Xvfb screen of W x H pixels at QT_SCALE_FACTOR S (issue 21: Qt's
# offscreen platform places no window; an X server does). Exits 77, which ctest counts as
# skipped, where xvfb-run is not installed (.ci/setup installs xvfb and xauth).
#   xvfb_run.sh W H S PROGRAM [ARGS...]
if ! command -v xvfb-run >/dev/null 2>&1; then
    echo "xvfb-run is not installed (apt-get install xvfb xauth): the real-window test is skipped"
    exit 77
fi
w=$1 h=$2 s=$3
shift 3
exec xvfb-run -a -s "-screen 0 ${w}x${h}x24" \
    env QT_QPA_PLATFORM=xcb QT_SCALE_FACTOR="$s" HEADSCOPE_TEST_SCREEN="${w}x${h}" "$@"
