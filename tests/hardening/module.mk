# hardening: hostile clients and faults from below (issue #5); see tests/hardening/run.sh.
INTEG_TOOLS += $(O)/tests/hardening/hostile $(O)/tests/hardening/faults \
	$(O)/tests/hardening/faildisk

# $(LIB) is not yet defined when this file is read, hence the literal path.
$(O)/tests/hardening/hostile: $(O)/tests/hardening/hostile.o $(O)/tests/hardening/hclient.o $(RAWRPC_OBJS) $(CHECK_OBJS) \
		$(O)/libshoal.a
	$(CC) $(LDFLAGS) -o $@ $^

$(O)/tests/hardening/faults: $(O)/tests/hardening/faults.o $(O)/tests/hardening/hclient.o $(RAWRPC_OBJS) $(CHECK_OBJS) \
		$(O)/libshoal.a
	$(CC) $(LDFLAGS) -o $@ $^

# faildisk: a FUSE disk that fails on demand, for the EIO case where the kernel has no
# device-mapper. Flags are asked of pkg-config when used, after deps-test installed it.
FUSE_CFLAGS = $(shell pkg-config --cflags fuse3)
FUSE_LIBS = $(shell pkg-config --libs fuse3)
$(O)/tests/hardening/faildisk.o: CFLAGS += $(FUSE_CFLAGS)
$(O)/tests/hardening/faildisk: $(O)/tests/hardening/faildisk.o
	$(CC) $(LDFLAGS) -o $@ $^ $(FUSE_LIBS)

HARDENING_TOOLS := $(O)/tests/hardening/hostile $(O)/tests/hardening/faults \
	$(O)/tests/hardening/faildisk

.PHONY: check-hardening soak-hardening

# Short forms (part of `make check`); the long forms run under SOAK=1 (`make soak`).
check-hardening: $(O)/shoal-server $(HARDENING_TOOLS)
	$(SUITE) "hardening ($(BUILD))" bash tests/hardening/run.sh $(O)

soak-hardening: $(O)/shoal-server $(HARDENING_TOOLS)
	$(SUITE) "hardening soak ($(BUILD))" env SOAK=1 HT_TEST_TIMEOUT=1800 \
		bash tests/hardening/run.sh $(O)
