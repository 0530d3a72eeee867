# concurrency: many clients in the same directories at once (issue #5); see conc_load.c.
INTEG_TOOLS += $(O)/tests/concurrency/conc_load

$(O)/tests/concurrency/conc_load: $(O)/tests/concurrency/conc_load.o $(NFSC_OBJS) $(CHECK_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lnfs

.PHONY: check-concurrency soak-concurrency
check-concurrency: $(O)/shoal-server $(O)/tests/concurrency/conc_load
	$(SUITE) "concurrency ($(BUILD))" sh tests/durability/suite.sh tests/concurrency $(O) $(if $(filter 1,$(SOAK)),soak,short)

soak-concurrency: $(O)/shoal-server $(O)/tests/concurrency/conc_load
	$(SUITE) "concurrency soak ($(BUILD))" sh tests/durability/suite.sh tests/concurrency $(O) soak
