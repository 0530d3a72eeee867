# report.mk - shoal-bench's results side: ORT and peak, JSON store, text report in the
# SPEC seed layout, host facts, SVG chart, and shoal-bench-report (renders stored runs
# without the load engine). The Makefile includes only */module.mk, so this file is
# included from there or from tools/bench/module.mk; the guard makes twice harmless.
# The engine links $(BENCH_REPORT_OBJS) into shoal-bench.
ifndef BENCH_REPORT_MK
BENCH_REPORT_MK := 1

BENCH_REPORT_SRCS := tools/bench/bench_ort.c tools/bench/bench_json.c tools/bench/report.c \
	tools/bench/bench_host.c tools/bench/bench_chart.c
BENCH_REPORT_OBJS := $(BENCH_REPORT_SRCS:%.c=$(O)/%.o)
BENCH_REPORT := $(O)/shoal-bench-report
BENCH_TOOLS += $(BENCH_REPORT)

$(BENCH_REPORT): $(O)/tools/bench/report_main.o $(BENCH_REPORT_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^

# The tests include "bench/..." headers and link the objects they test.
BENCH_REPORT_TESTS := test_bench_ort test_bench_json test_report test_bench_chart
UNIT_TESTS += $(BENCH_REPORT_TESTS:%=tests/unit/bench/%.c)
$(O)/tests/unit/bench/%.o: CFLAGS += -Itools
$(O)/tests/unit/bench/test_bench_ort: $(O)/tools/bench/bench_ort.o
$(O)/tests/unit/bench/test_bench_json: $(O)/tools/bench/bench_json.o
$(O)/tests/unit/bench/test_report: $(O)/tools/bench/report.o $(O)/tools/bench/bench_ort.o
$(O)/tests/unit/bench/test_bench_chart: $(O)/tools/bench/bench_chart.o \
	$(O)/tools/bench/bench_ort.o

endif
