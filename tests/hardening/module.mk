# hardening: hostile clients and faults from below (issue #5); see tests/hardening/run.sh.
INTEG_TOOLS += $(O)/tests/hardening/hostile $(O)/tests/hardening/faults

# $(LIB) is not yet defined when this file is read, hence the literal path.
$(O)/tests/hardening/hostile: $(O)/tests/hardening/hostile.o $(O)/tests/hardening/hclient.o \
		$(O)/libshoal.a
	$(CC) $(LDFLAGS) -o $@ $^

$(O)/tests/hardening/faults: $(O)/tests/hardening/faults.o $(O)/tests/hardening/hclient.o \
		$(O)/libshoal.a
	$(CC) $(LDFLAGS) -o $@ $^

.PHONY: check-hardening soak-hardening

# Short forms (part of `make check`); the long forms run under SOAK=1 (`make soak`).
check-hardening: $(O)/shoal-server $(O)/tests/hardening/hostile $(O)/tests/hardening/faults
	$(SUITE) "hardening ($(BUILD))" bash tests/hardening/run.sh $(O)

soak-hardening: $(O)/shoal-server $(O)/tests/hardening/hostile $(O)/tests/hardening/faults
	$(SUITE) "hardening soak ($(BUILD))" env SOAK=1 HT_TEST_TIMEOUT=1800 \
		bash tests/hardening/run.sh $(O)
