# kernel: the Linux kernel NFS client against shoal-server, in a VM (tests/kernel/run.sh).
#
#   make check-kernel    install qemu and debootstrap, build the server, build or reuse the
#                        guest image (in /var/cache/shoal-vm), boot it, run the workload
#
# When the packages cannot be installed, run.sh says that the test did not run and counts
# it as one failure: a kernel test that did not run is never a pass.
.PHONY: check-kernel deps-kernel

deps-kernel:
	sh scripts/install-deps.sh kernel

check-kernel:
	-sh scripts/install-deps.sh kernel
	$(MAKE) --no-print-directory server
	$(SUITE) kernel bash tests/kernel/run.sh $(O)
