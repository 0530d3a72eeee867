# durability: crash and restart under load (issue #5); see tests/durability/suite.sh.
INTEG_TOOLS += $(O)/tests/durability/dur_load $(O)/tests/durability/dur_meta \
	$(O)/tests/durability/dur_trunc

# $(NFSC_OBJS) (tests/module.mk) is the small synchronous libnfs client of tests/lib/.
$(O)/tests/durability/dur_load: $(O)/tests/durability/dur_load.o $(NFSC_OBJS) $(CHECK_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lnfs

# dur_trunc: a logged stable write and a size change, for test_log_truncate.sh.
$(O)/tests/durability/dur_trunc: $(O)/tests/durability/dur_trunc.o $(NFSC_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lnfs

# dur_meta: the namespace load of the power-loss test (tests/kernel/power.sh).
$(O)/tests/durability/dur_meta: $(O)/tests/durability/dur_meta.o $(NFSC_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lnfs

.PHONY: check-durability soak-durability
check-durability: $(O)/shoal-server $(O)/tests/durability/dur_load $(O)/tests/durability/dur_trunc \
	$(O)/tests/durability/dur_meta
	$(SUITE) "durability ($(BUILD))" sh tests/durability/suite.sh tests/durability $(O) $(if $(filter 1,$(SOAK)),soak,short)

soak-durability: $(O)/shoal-server $(O)/tests/durability/dur_load
	$(SUITE) "durability soak ($(BUILD))" sh tests/durability/suite.sh tests/durability $(O) soak
