# nfsload: GETATTR/LOOKUP/ACCESS load generator on libnfs (the issue #2 speed floor)
NFSLOAD := $(O)/tools/nfsload/nfsload
BENCH_TOOLS += $(NFSLOAD)

$(NFSLOAD): tools/nfsload/nfsload.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $< -lnfs
# tests/integration/test_connections.sh drives 256 connections with it.
INTEG_TOOLS += $(NFSLOAD)
