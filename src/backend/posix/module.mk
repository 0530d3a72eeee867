# backend/posix: the local-directory back-end (Linux syscalls behind struct backend_ops)
LIB_SRCS += src/backend/posix/posix_ops.c src/backend/posix/posix_ident.c
UNIT_TESTS += tests/unit/backend/posix/test_posix.c
