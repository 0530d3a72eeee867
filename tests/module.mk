# tests: what the test tools share, defined before the tests/*/module.mk files use it.
# CHECK_OBJS reports checks (tests/lib/check.h); NFSC_OBJS is the small synchronous
# libnfs client of tests/lib/nfsc.h; RAWRPC_OBJS the hand-written RPC transport of
# tests/lib/rawrpc.h.
CHECK_OBJS := $(O)/tests/lib/check.o
NFSC_OBJS := $(O)/tests/lib/nfsc.o $(O)/tests/lib/nfsc_call.o $(O)/tests/lib/nfsc_util.o
RAWRPC_OBJS := $(O)/tests/lib/rawrpc.o
