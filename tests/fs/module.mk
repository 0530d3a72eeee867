# fs: the unit tests that reach an export's file system, and the integration and
# durability suites, over ext4 with a journal, XFS and btrfs (tests/fs/run.sh), each
# made on a loop device: the machine's own /tmp and /var/tmp are one file system only.
# (The test binaries are built first by `build`: some modules that add to INTEG_TOOLS
# are read after this one.)
FS_UNIT_BINS = $(filter $(O)/tests/unit/vfs/% $(O)/tests/unit/wlog/% \
	$(O)/tests/unit/nfs3/test_nfs3_write $(O)/tests/unit/backend/%,$(UNIT_BINS))

.PHONY: check-fs
check-fs:
	$(MAKE) --no-print-directory build
	$(SUITE) "fs ($(BUILD))" bash tests/fs/run.sh $(O) $(FS_UNIT_BINS)
