# fuzz: one libFuzzer target per decoder of bytes from the network or from a user's file,
# each with a committed seed corpus (tests/fuzz/<target>/corpus) and its past crashes
# (crashes/).
#
#   make check-fuzz   replay every corpus and crash file through the targets built in the
#                     current BUILD (any compiler), then, when clang's libFuzzer is there,
#                     fuzz each target briefly from its corpus (FUZZ_CHECK_RUNS inputs,
#                     at most FUZZ_CHECK_SECONDS); last line "fuzz: N execs, M crashes"
#   make fuzz         fuzz each target for FUZZ_SECONDS on a copy of its corpus (kept in
#                     $(FUZZ_O)/fuzz-work/); crashes land in tests/fuzz/<target>/crashes/
#   make fuzz-merge   merge what `make fuzz` found that adds coverage into the corpora
#
# FUZZ_TARGETS=... picks targets. The libFuzzer binaries are a BUILD=fuzz (clang) build in
# FUZZ_O, next to the current one: build/release -> build/fuzz.
FUZZ_TARGETS ?= recmark rpc_call nfs3_args mount_args portmap_args dispatch exports_parser \
	bench_replies bench_json
FUZZ_SECONDS ?= 60
FUZZ_CHECK_RUNS ?= 20000
FUZZ_CHECK_SECONDS ?= 6
FUZZ_O ?= $(if $(filter fuzz,$(BUILD)),$(O),$(patsubst %/,%,$(dir $(O)))/fuzz)

FUZZ_REPLAY := $(foreach t,$(FUZZ_TARGETS),$(O)/tests/fuzz/$(t)/replay_$(t))
FUZZ_BINS := $(foreach t,$(FUZZ_TARGETS),$(O)/tests/fuzz/$(t)/fuzz_$(t))

# replay_<t>: the target with replay.c's main(); fuzz_<t>: the target with libFuzzer's.
# ($(LIB) is not yet defined when this file is read, hence the literal path.)
# FUZZ_OBJS_<t>: objects a target needs besides libshoal (shoal-bench's, for bench_replies
# and bench_json).
FUZZ_OBJS_bench_replies := $(O)/tools/bench/client_conn.o
FUZZ_OBJS_bench_json := $(O)/tools/bench/bench_json.o
$(O)/tests/fuzz/bench_replies/%.o $(O)/tests/fuzz/bench_json/%.o: CFLAGS += -Itools/bench
define FUZZ_RULES
$(O)/tests/fuzz/$(1)/replay_$(1): $(O)/tests/fuzz/$(1)/fuzz_$(1).o $(O)/tests/fuzz/replay.o \
		$(FUZZ_OBJS_$(1)) $(O)/libshoal.a
	$$(CC) $$(LDFLAGS) -o $$@ $$^
$(O)/tests/fuzz/$(1)/fuzz_$(1): $(O)/tests/fuzz/$(1)/fuzz_$(1).o $(FUZZ_OBJS_$(1)) $(O)/libshoal.a
	$$(CC) $$(LDFLAGS) -fsanitize=fuzzer -o $$@ $$^
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call FUZZ_RULES,$(t))))

.PHONY: fuzz fuzz-merge fuzz-bins fuzz-replay check-fuzz check-fuzz-run

fuzz-replay: $(FUZZ_REPLAY)

ifeq ($(BUILD),fuzz)
fuzz-bins: $(FUZZ_BINS)
else
fuzz-bins:
	$(MAKE) --no-print-directory BUILD=fuzz O=$(FUZZ_O) fuzz-bins
endif

# As a recorded step of `make check` (its "N passed, M failed" goes to the summary).
check-fuzz: $(FUZZ_REPLAY)
	$(SUITE) "fuzz ($(BUILD))" $(MAKE) --no-print-directory check-fuzz-run

check-fuzz-run: $(FUZZ_REPLAY)
	@if sh tests/fuzz/run.sh have-libfuzzer; then \
		if $(MAKE) --no-print-directory BUILD=fuzz O=$(FUZZ_O) fuzz-bins; then \
			fdir=$(FUZZ_O); else fdir=BUILD-FAILED; fi; \
	else fdir=-; fi; \
	FUZZ_CHECK_RUNS=$(FUZZ_CHECK_RUNS) FUZZ_CHECK_SECONDS=$(FUZZ_CHECK_SECONDS) \
		sh tests/fuzz/run.sh check $(O) $$fdir $(FUZZ_TARGETS)

fuzz:
	$(MAKE) --no-print-directory BUILD=fuzz O=$(FUZZ_O) fuzz-bins
	sh tests/fuzz/run.sh fuzz $(FUZZ_O) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-merge:
	$(MAKE) --no-print-directory BUILD=fuzz O=$(FUZZ_O) fuzz-bins
	sh tests/fuzz/run.sh merge $(FUZZ_O) $(FUZZ_TARGETS)
