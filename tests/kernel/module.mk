# kernel: the Linux kernel NFS client against shoal-server, in a VM (tests/kernel/run.sh);
# power: shoal-server in that VM, its power cut under load (tests/kernel/power.sh).
#
#   make check-kernel    install qemu and debootstrap, build the server, build or reuse the
#                        guest image (in /var/cache/shoal-vm), boot it, run the workload
#   make check-power     the same image; the server in the guest, its export on a second
#                        disk, the power cut under a data load (with and without the
#                        stable-write log, replayed by a second boot) and a namespace
#                        load (on ext4 with and without a journal), and every
#                        acknowledged byte and change looked for on the disk
#
# When the packages cannot be installed, run.sh and power.sh say that the test did not
# run and count it as one failure: a VM test that did not run is never a pass.
.PHONY: check-kernel check-power deps-kernel

deps-kernel:
	sh scripts/install-deps.sh kernel

check-kernel:
	-sh scripts/install-deps.sh kernel
	$(MAKE) --no-print-directory server
	$(SUITE) kernel bash tests/kernel/run.sh $(O)

# The loads (dur_load, dur_meta) link libnfs, one of the test packages.
check-power:
	-sh scripts/install-deps.sh kernel
	-sh scripts/install-deps.sh test
	$(MAKE) --no-print-directory server $(O)/tests/durability/dur_load $(O)/tests/durability/dur_meta \
		$(O)/tests/kernel/cachedisk
	$(SUITE) power bash tests/kernel/power.sh $(O)

# cachedisk: the power test's virtual disk, with a volatile write cache that the power
# cut partly loses, served to qemu over NBD (tests/kernel/cachedisk.h).
CACHEDISK_OBJS := $(O)/tests/kernel/cachedisk.o $(O)/tests/kernel/cachedisk_nbd.o
INTEG_TOOLS += $(O)/tests/kernel/cachedisk
UNIT_TESTS += tests/unit/kernel/test_cachedisk.c

$(O)/tests/kernel/cachedisk: $(O)/tests/kernel/cachedisk_main.o $(CACHEDISK_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^

$(O)/tests/unit/kernel/test_cachedisk: $(CACHEDISK_OBJS)
