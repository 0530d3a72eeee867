# Shoal - one non-recursive GNU Makefile; each directory adds its sources in module.mk.
#
#   make run      install what the server needs, build, serve ./export
#   make check    install what the tests need, build, run every test (also under ASan/UBSan)
#   make BUILD=debug|release|asan|fuzz ...   variants build side by side in build/<variant>/

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
else ifeq ($(BUILD),fuzz)
CC := clang
CFLAGS_VAR := -O1 -g -fno-omit-frame-pointer -fsanitize=fuzzer-no-link,address,undefined
LDFLAGS_VAR := -fsanitize=address,undefined
else
$(error BUILD must be debug, release, asan or fuzz)
endif

CFLAGS := $(CFLAGS_BASE) $(CFLAGS_VAR) $(EXTRA_CFLAGS)
LDFLAGS := -pthread $(LDFLAGS_VAR) $(EXTRA_LDFLAGS)

# Filled by the module.mk files.
LIB_SRCS :=
SERVER_SRCS :=
UNIT_TESTS :=
INTEG_TOOLS :=

include $(wildcard src/*/module.mk src/backend/*/module.mk tests/module.mk tests/*/module.mk tools/*/module.mk)

LIB_OBJS := $(LIB_SRCS:%.c=$(O)/%.o)
LIB := $(O)/libshoal.a
SERVER := $(O)/shoal-server
UNIT_BINS := $(UNIT_TESTS:%.c=$(O)/%)

.SECONDARY:

.PHONY: all build server run check check-unit check-integration check-asan check-style \
	deps deps-test clean format lint

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

EXPORT_DIR ?= $(CURDIR)/export
run: deps $(SERVER)
	@mkdir -p $(EXPORT_DIR)
	sh scripts/run.sh $(SERVER) $(EXPORT_DIR)

check-unit: $(UNIT_BINS)
	sh tests/run-unit.sh $(UNIT_BINS)

check-integration: $(SERVER) $(INTEG_TOOLS)
	sh tests/integration/run.sh $(O)

check-asan:
	$(MAKE) BUILD=asan check-unit check-integration

check-style:
	sh scripts/check-style.sh

check: deps-test
	$(MAKE) BUILD=release build
	$(MAKE) BUILD=release check-style
	$(MAKE) BUILD=release check-unit check-integration
	$(MAKE) BUILD=asan check-unit check-integration
	@echo "make check: all suites passed"

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build

-include $(shell find $(O) -name "*.d" 2>/dev/null)
