# integration: client tools for the shell tests in tests/integration/ (see run.sh)
INTEG_TOOLS += $(O)/tests/integration/nfs3_procs $(O)/tests/integration/rpc_raw

# nfs3_procs drives every NFSv3 and MOUNT procedure through libnfs (a client we did not write).
$(O)/tests/integration/nfs3_procs: $(O)/tests/integration/nfs3_procs.o $(NFSC_OBJS) $(CHECK_OBJS)
	$(CC) $(LDFLAGS) -o $@ $^ -lnfs

# rpc_raw speaks raw RPC with src/xdr, for what libnfs cannot send ($(LIB) is not yet
# defined when this file is read, hence the literal path).
$(O)/tests/integration/rpc_raw: $(O)/tests/integration/rpc_raw.o $(RAWRPC_OBJS) $(CHECK_OBJS) $(O)/libshoal.a
	$(CC) $(LDFLAGS) -o $@ $^
