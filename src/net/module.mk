# net: listeners, per-thread event loops, record marking, UDP, blocking pool
LIB_SRCS += src/net/net.c src/net/net_loop.c src/net/net_mem.c src/net/net_peers.c src/net/net_pool.c src/net/net_prio.c src/net/recmark.c
UNIT_TESTS += tests/unit/net/test_recmark.c tests/unit/net/test_net_loopback.c tests/unit/net/test_net_peers.c tests/unit/net/test_net_prio.c
