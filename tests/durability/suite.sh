#!/bin/bash
# suite.sh - runs the test_*.sh scripts of one of tests/durability, tests/concurrency or
# tests/access against the shoal-server in BUILD-DIR (see tests/run-suite.sh), with the
# helpers of tests/integration/lib.sh; repeats every "summary:" line the tests printed
# (without the prefix), then "SUITE (MODE): N passed, M failed". The mode reaches the
# tests as SOAK=0/1.
#
#   sh tests/durability/suite.sh SUITE-DIR BUILD-DIR [short|soak]
dir=${1:?usage: suite.sh SUITE-DIR BUILD-DIR [short|soak]}
build=${2:?usage: suite.sh SUITE-DIR BUILD-DIR [short|soak]}
mode=${3:-short}
here=$(cd "$(dirname "$0")" && pwd)
SOAK=0
timeout=${IT_TEST_TIMEOUT:-150}
if [ "$mode" = soak ]; then
	SOAK=1
	timeout=${IT_SOAK_TIMEOUT:-3600}
fi
export SOAK IT_LIB="$here/../integration/lib.sh"
SUITE_TIMEOUT=$timeout SUITE_FIGURES='^summary: ' \
	exec bash "$here/../run-suite.sh" "$(basename "$dir") ($mode)" "$dir" "$build"
