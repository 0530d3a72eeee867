# access: AUTH_SYS identities, squashing, client lists and handle tricks (issue #5).
INTEG_TOOLS += $(O)/tests/access/acc_probe

$(O)/tests/access/acc_probe: $(O)/tests/access/acc_probe.o $(NFSC_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lnfs

.PHONY: check-access soak-access
check-access: $(O)/shoal-server $(O)/tests/access/acc_probe
	$(SUITE) "access ($(BUILD))" sh tests/durability/suite.sh tests/access $(O) $(if $(filter 1,$(SOAK)),soak,short)

# The access checks are deterministic: the long form is the same run.
soak-access: $(O)/shoal-server $(O)/tests/access/acc_probe
	$(SUITE) "access soak ($(BUILD))" sh tests/durability/suite.sh tests/access $(O) soak
