# mount: MOUNT program 100005, versions 1, 2 and 3 (RFC 1813 appendix I)
LIB_SRCS += src/mount/mount_xdr.c src/mount/mount_proc.c
UNIT_TESTS += tests/unit/mount/test_mount_xdr.c tests/unit/mount/test_mount_proc.c
