# Shoal - one non-recursive GNU Makefile; each directory adds its sources in module.mk.
#
#   make run      install what the server needs, build, serve ./export
#   make check    install what the tests need, build, run every test (also under ASan/UBSan, TSan)
#   make BUILD=debug|release|asan|tsan|fuzz ...   variants build side by side in build/<variant>/

BUILD ?= release
O ?= build/$(BUILD)
CC ?= cc

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2 \
	-Wimplicit-fallthrough -Wvla
CFLAGS_BASE := -std=c17 -D_GNU_SOURCE -Isrc -Itests -pthread -MMD -MP $(WARN)

ifeq ($(BUILD),release)
CFLAGS_VAR := -O2 -g
else ifeq ($(BUILD),debug)
CFLAGS_VAR := -O0 -g
else ifeq ($(BUILD),asan)
CFLAGS_VAR := -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
LDFLAGS_VAR := -fsanitize=address,undefined
else ifeq ($(BUILD),tsan)
CFLAGS_VAR := -O1 -g -fno-omit-frame-pointer -fsanitize=thread
LDFLAGS_VAR := -fsanitize=thread
else ifeq ($(BUILD),fuzz)
CC := clang
CFLAGS_VAR := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
LDFLAGS_VAR := -fsanitize=address,undefined
else
$(error BUILD must be debug, release, asan, tsan or fuzz)
endif

CFLAGS := $(CFLAGS_BASE) $(CFLAGS_VAR) $(EXTRA_CFLAGS)
LDFLAGS := -pthread $(LDFLAGS_VAR) $(EXTRA_LDFLAGS)

# Filled by the module.mk files.
LIB_SRCS :=
SERVER_SRCS :=
UNIT_TESTS :=
INTEG_TOOLS :=
BENCH_TOOLS :=

# The modules below define rules of their own: without this, a bare `make` would build
# only the first of them.
.DEFAULT_GOAL := all

include $(wildcard src/*/module.mk src/backend/*/module.mk tests/module.mk tests/*/module.mk tools/*/module.mk)

LIB_OBJS := $(LIB_SRCS:%.c=$(O)/%.o)
LIB := $(O)/libshoal.a
SERVER := $(O)/shoal-server
UNIT_BINS := $(UNIT_TESTS:%.c=$(O)/%)

.SECONDARY:

.PHONY: all build server run check check-unit check-integration check-asan check-style \
	deps deps-test deps-bench bench soak clean format lint install check-build

all: build
build: $(SERVER) $(UNIT_BINS) $(INTEG_TOOLS)
server: $(SERVER)

$(O)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

$(SERVER): $(SERVER_SRCS:%.c=$(O)/%.o) $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^

$(O)/tests/unit/%: $(O)/tests/unit/%.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $^

deps:
	sh scripts/install-deps.sh run

deps-test:
	sh scripts/install-deps.sh test

# `make run`: the build starts only after deps, even under -j.
EXPORT_DIR ?= $(CURDIR)/export
STATE_DIR ?= $(CURDIR)/.shoal-state
run: deps
	$(MAKE) --no-print-directory server
	@mkdir -p $(EXPORT_DIR)
	sh scripts/run.sh $(SERVER) $(EXPORT_DIR) $(STATE_DIR)

# Each suite prints "N passed, M failed"; with CHECK_SUMMARY set (as check and check-asan
# do) check-suite.sh also appends that count, under the suite's name, to the file.
CHECK_SUMMARY ?=
SUITE = bash scripts/check-suite.sh "$(CHECK_SUMMARY)"

check-unit: $(UNIT_BINS)
	$(SUITE) "unit ($(BUILD))" sh tests/run-unit.sh $(UNIT_BINS)

check-integration: $(SERVER) $(INTEG_TOOLS)
	$(SUITE) "integration ($(BUILD))" sh tests/integration/run.sh $(O)

CLANG_O ?= build/clang
check-style:
	$(SUITE) style env CLANG_O=$(CLANG_O) sh scripts/check-style.sh

lint: check-style

# `make check` runs every step even when one fails, then prints the total over all of
# them as its last line ("check: N passed, M failed") and fails if anything failed or
# did not run. Builds inside a step use every core unless -j was given. The variants go
# to build/release, build/asan and build/clang, or under $(O) when O is given.
NPROC := $(shell nproc 2>/dev/null || echo 2)
JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))
CHECK_OUT := $(if $(filter command line,$(origin O)),$(O),build)
STEP = $(MAKE) --no-print-directory $(JOBS) CHECK_SUMMARY=$(abspath $(CHECK_OUT))/$@.txt
VARIANT = BUILD=$(1) O=$(CHECK_OUT)/$(1)

check: deps-test
	@mkdir -p $(CHECK_OUT) && rm -f $(CHECK_OUT)/$@.txt $(CHECK_OUT)/$@.txt.figures
	-$(STEP) $(call VARIANT,release) check-build
	-$(STEP) $(call VARIANT,release) CLANG_O=$(CHECK_OUT)/clang check-style
	-$(STEP) $(call VARIANT,release) check-unit
	-$(STEP) $(call VARIANT,release) check-integration
	-$(STEP) $(call VARIANT,release) check-durability
	-$(STEP) $(call VARIANT,release) check-concurrency
	-$(STEP) $(call VARIANT,release) check-access
	-$(STEP) $(call VARIANT,release) check-hardening
	-$(STEP) $(call VARIANT,release) check-fs
	-$(STEP) $(call VARIANT,release) check-kernel
	-$(STEP) $(call VARIANT,release) check-power
	-$(STEP) $(call VARIANT,asan) check-unit
	-$(STEP) $(call VARIANT,asan) check-integration
	-$(STEP) $(call VARIANT,asan) check-hardening
	-$(STEP) $(call VARIANT,asan) check-fuzz
	-$(STEP) $(call VARIANT,tsan) check-unit
	-$(STEP) $(call VARIANT,tsan) check-concurrency
	@sh scripts/check-summary.sh $(CHECK_OUT)/$@.txt "build (release)" style \
		"unit (release)" "integration (release)" "durability (release)" \
		"concurrency (release)" "access (release)" "hardening (release)" "fs (release)" \
		kernel power \
		"unit (asan)" "integration (asan)" "hardening (asan)" "fuzz (asan)" \
		"unit (tsan)" "concurrency (tsan)"

# `make soak`: the long forms of the hardening suites (issue #5).
soak: deps-test
	@mkdir -p $(CHECK_OUT) && rm -f $(CHECK_OUT)/$@.txt $(CHECK_OUT)/$@.txt.figures
	-$(STEP) $(call VARIANT,release) soak-durability
	-$(STEP) $(call VARIANT,release) soak-concurrency
	-$(STEP) $(call VARIANT,release) soak-access
	-$(STEP) $(call VARIANT,release) soak-hardening
	@sh scripts/check-summary.sh $(CHECK_OUT)/$@.txt "durability soak (release)" \
		"concurrency soak (release)" "access soak (release)" "hardening soak (release)"

check-asan: deps-test
	@mkdir -p $(CHECK_OUT) && rm -f $(CHECK_OUT)/$@.txt $(CHECK_OUT)/$@.txt.figures
	-$(STEP) $(call VARIANT,asan) check-unit
	-$(STEP) $(call VARIANT,asan) check-integration
	@sh scripts/check-summary.sh $(CHECK_OUT)/$@.txt "unit (asan)" "integration (asan)"

# The whole build as one recorded step of `make check`.
check-build:
	$(SUITE) "build ($(BUILD))" $(MAKE) --no-print-directory build

# `make bench`: speed is measured here, never in tests, and always as a ratio to
# nfs-ganesha measured in the same run (bench/meta.sh). BENCH_SECONDS sets the length.
# BENCH_SFS_ARGS=--full for SFS2008's 300 s warm-up + 300 s measured points.
BENCH_SECONDS ?= 10
BENCH_SFS_ARGS ?=
bench: deps-bench
	$(MAKE) --no-print-directory BUILD=release server $(BENCH_TOOLS)
	bash bench/meta.sh build/release $(BENCH_SECONDS)
	bash bench/sfs.sh build/release $(BENCH_SFS_ARGS)

deps-bench:
	sh scripts/install-deps.sh bench

PREFIX ?= /usr/local
DESTDIR ?=
install: $(SERVER)
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 755 $(SERVER) $(DESTDIR)$(PREFIX)/sbin/shoal-server
	install -m 644 doc/shoal-server.8 $(DESTDIR)$(PREFIX)/share/man/man8/shoal-server.8

format:
	clang-format -i $$(git ls-files --cached --others --exclude-standard '*.c' '*.h')

clean:
	rm -rf build

# Header dependencies: every object's .d file, written by -MMD -MP next to it.
-include $(shell find $(O) -name '*.d' 2>/dev/null)
