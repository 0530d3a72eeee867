# tests: what the test tools share, defined before the tests/*/module.mk files use it.
# NFSC_OBJS is the small synchronous libnfs client of tests/lib/nfsc.h.
NFSC_OBJS := $(O)/tests/lib/nfsc.o $(O)/tests/lib/nfsc_call.o $(O)/tests/lib/nfsc_util.o
