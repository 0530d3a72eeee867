# shoal-bench: the SFS2008-style NFSv3 load generator (tools/bench), its unit tests
# (tests/unit/bench) and the client side of the NFSv3 codec it is built on.
LIB_SRCS += src/nfs3/nfs3_xdr_client.c

# The workload, histogram, peak search and client pieces the unit tests link against.
BENCH_CORE_SRCS := tools/bench/bench_hist.c tools/bench/workload_mix.c \
	tools/bench/workload_sizes.c tools/bench/workload_fileset.c tools/bench/workload_pace.c \
	tools/bench/peak_search.c tools/bench/bench_threads.c tools/bench/bench_machine.c
# The report side (report.mk: ORT, JSON, text report, host facts, SVG) is linked in
# when present; main.c finds its headers with __has_include.
include $(wildcard tools/bench/report.mk)
BENCH_SRCS := $(BENCH_CORE_SRCS) tools/bench/client_conn.c tools/bench/client_mount.c \
	tools/bench/engine_op.c tools/bench/engine_loop.c tools/bench/engine_populate.c \
	tools/bench/engine_settle.c tools/bench/bench_summary.c tools/bench/main.c
SHOAL_BENCH := $(O)/shoal-bench
BENCH_TOOLS += $(SHOAL_BENCH)
# built by `make build` (and so by make check, whose integration test runs it)
INTEG_TOOLS += $(SHOAL_BENCH)

BENCH_UNIT := tests/unit/bench/test_bench_hist.c tests/unit/bench/test_workload_mix.c \
	tests/unit/bench/test_workload_sizes.c tests/unit/bench/test_workload_pace.c \
	tests/unit/bench/test_peak_search.c tests/unit/bench/test_bench_threads.c \
	tests/unit/bench/test_bench_machine.c
UNIT_TESTS += $(BENCH_UNIT)

$(O)/tools/bench/%.o $(O)/tests/unit/bench/%.o: CFLAGS += -Itools/bench

$(SHOAL_BENCH): $(BENCH_SRCS:%.c=$(O)/%.o) $(BENCH_REPORT_OBJS) $(O)/libshoal.a
	$(CC) $(LDFLAGS) -o $@ $^ -lm

$(BENCH_UNIT:%.c=$(O)/%): $(O)/tests/unit/bench/%: $(O)/tests/unit/bench/%.o \
		$(BENCH_CORE_SRCS:%.c=$(O)/%.o) $(O)/libshoal.a
	$(CC) $(LDFLAGS) -o $@ $^ -lm
