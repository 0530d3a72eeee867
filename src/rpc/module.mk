# rpc: call/reply headers, AUTH_SYS, duplicate request cache, dispatch
LIB_SRCS += src/rpc/rpc.c src/rpc/rpc_msg.c src/rpc/drc.c src/rpc/rpc_stats.c
UNIT_TESTS += tests/unit/rpc/test_rpc_msg.c tests/unit/rpc/test_rpc_dispatch.c \
	tests/unit/rpc/test_drc.c
