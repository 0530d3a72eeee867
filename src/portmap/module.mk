# portmap: portmapper v2 (RFC 1833 section 3) and registration with a system rpcbind
LIB_SRCS += src/portmap/portmap_xdr.c src/portmap/portmap_proc.c src/portmap/portmap_client.c
UNIT_TESTS += tests/unit/portmap/test_portmap.c
