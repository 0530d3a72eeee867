#!/bin/sh
# run.sh - the integration suite: every tests/integration/test_*.sh against the
# shoal-server in BUILD-DIR, in a private network namespace (see tests/run-suite.sh),
# ending with "integration: N passed, M failed".
#
#   sh tests/integration/run.sh build/<variant> [test_name ...]
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run.sh BUILD-DIR [test_name ...]}
shift
SUITE_TIMEOUT=${IT_TEST_TIMEOUT:-150} exec bash "$here/../run-suite.sh" integration "$here" \
	"$build" "$@"
