# vfs: protocol-neutral, handle-based file operations (handles, node cache, operations)
LIB_SRCS += src/vfs/vfs_fh.c src/vfs/vfs_cache.c src/vfs/vfs_util.c src/vfs/vfs_ops.c \
	src/vfs/vfs_wlog.c src/vfs/vfs_nowait.c \
	src/vfs/vfs_dirops.c src/vfs/vfs_readdir.c
UNIT_TESTS += tests/unit/vfs/test_vfs_fh.c tests/unit/vfs/test_vfs_ops.c \
	tests/unit/vfs/test_vfs_readdir.c tests/unit/vfs/test_vfs_sync.c
