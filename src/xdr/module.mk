# xdr: bounds-checked XDR cursors
LIB_SRCS += src/xdr/xdr.c
UNIT_TESTS += tests/unit/xdr/test_xdr.c
