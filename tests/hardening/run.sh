#!/bin/bash
# run.sh - the hardening suite (issue #5): tests/hardening/test_*.sh against the
# shoal-server in BUILD-DIR, in private network and mount namespaces (so the tmpfs and
# bind mounts the fault tests make never leak out; see tests/run-suite.sh), then the
# figures they measured ("hostile: M cases, server up", "peak RSS under load: X MiB",
# "faults: K cases") and "hardening: N passed, M failed". SOAK=1 runs the long forms.
#
#   bash tests/hardening/run.sh build/<variant> [test_name ...]
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: run.sh BUILD-DIR [test_name ...]}
shift
SUITE_NS="mount net" SUITE_TIMEOUT=${HT_TEST_TIMEOUT:-180} \
	SUITE_FIGURES='^(hostile: |peak RSS under load: |probe: |faults: [0-9]+ cases|NOT RUN )' \
	exec bash "$here/../run-suite.sh" hardening "$here" "$build" "$@"
