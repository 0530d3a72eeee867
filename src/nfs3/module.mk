# nfs3: NFS version 3 (RFC 1813) - wire codec, procedures, status mapping
LIB_SRCS += src/nfs3/nfs3_xdr.c
UNIT_TESTS += tests/unit/nfs3/test_nfs3_xdr.c
LIB_SRCS += src/nfs3/nfs3_proc.c
LIB_SRCS += src/nfs3/nfs3_proc_dir.c
LIB_SRCS += src/nfs3/nfs3_proc_write.c
LIB_SRCS += src/nfs3/nfs3_status.c
UNIT_TESTS += tests/unit/nfs3/test_nfs3_status.c tests/unit/nfs3/test_nfs3_dispatch.c
UNIT_TESTS += tests/unit/nfs3/test_nfs3_write.c
