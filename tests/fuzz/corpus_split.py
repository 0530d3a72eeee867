#!/usr/bin/env python3
"""corpus_split.py - turn a capture of real ONC RPC traffic into fuzz seed files.

    python3 tests/fuzz/corpus_split.py CAPTURE.pcap EXPORT-PATH OUT-DIR

Reads a classic pcap (as tcpdump -w writes it; Ethernet, Linux cooked or raw IP),
reassembles each TCP direction, splits it into RPC records (dropping the record marks),
takes UDP datagrams as whole messages, and writes seeds under OUT-DIR/<target>/corpus/,
all named cap-*:

  recmark       2 header bytes (limit, chunking seed) + the client's byte stream
  rpc_call      each distinct call message as sent
  nfs3_args     procedure byte + the arguments (the call without its RPC header)
  mount_args    procedure byte + the arguments; also + the result body of replies
  portmap_args  procedure byte + the arguments; also + the result body of replies
  dispatch      the call with every file handle the server handed out replaced by
                "SHOALFH:<path in the export>" and every MOUNT dirpath under
                EXPORT-PATH by "SHOALDP:<rest>" (see fuzz_dispatch.c)

Handles are named by following MNT, LOOKUP, CREATE/MKDIR/SYMLINK/MKNOD and READDIRPLUS
replies. At most PER_KIND seeds are kept per program, version and procedure.
"""
import hashlib
import os
import struct
import sys

PER_KIND = 4
RECMARK_MAX = 16384
NFS, MOUNT, PMAP = 100003, 100005, 100000


def u32(b, o):
    return struct.unpack_from(">I", b, o)[0]


def opaque(b, o):
    n = u32(b, o)
    return b[o + 4:o + 4 + n], o + 4 + n + (-n % 4)


def packets(path):
    data = open(path, "rb").read()
    magic = data[:4]
    end = "<" if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    link = struct.unpack_from(end + "I", data, 20)[0]
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack_from(end + "I", data, off + 8)[0]
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if link == 1:
            if len(frame) < 14:
                continue
            etype, ip = struct.unpack_from(">H", frame, 12)[0], frame[14:]
        elif link == 113:
            etype, ip = struct.unpack_from(">H", frame, 14)[0], frame[16:]
        elif link == 276:
            etype, ip = struct.unpack_from(">H", frame, 0)[0], frame[20:]
        else:
            etype, ip = (0x800 if frame[:1] and frame[0] >> 4 == 4 else 0x86DD), frame
        if etype == 0x800 and len(ip) >= 20:
            hl, proto = (ip[0] & 15) * 4, ip[9]
            tot = struct.unpack_from(">H", ip, 2)[0]
            src, dst, l4 = ip[12:16], ip[16:20], ip[hl:tot]
        elif etype == 0x86DD and len(ip) >= 40:
            proto, src, dst = ip[6], ip[8:24], ip[24:40]
            l4 = ip[40:40 + struct.unpack_from(">H", ip, 4)[0]]
        else:
            continue
        yield proto, src, dst, l4


def streams(path):
    """(kind, flow, payload): kind 'tcp' payloads are whole direction streams."""
    tcp = {}
    order = []
    for proto, src, dst, l4 in packets(path):
        if proto == 17 and len(l4) >= 8:
            sp, dp = struct.unpack_from(">HH", l4, 0)
            yield "udp", (src, sp, dst, dp), l4[8:]
        elif proto == 6 and len(l4) >= 20:
            sp, dp, seq = struct.unpack_from(">HHI", l4, 0)
            payload = l4[(l4[12] >> 4) * 4:]
            flow = (src, sp, dst, dp)
            if flow not in tcp:
                tcp[flow] = {}
                order.append(flow)
            if payload:
                tcp[flow].setdefault(seq, payload)
    for flow in order:
        segs = tcp[flow]
        if not segs:
            continue
        seqs = sorted(segs)
        out, nxt = bytearray(), seqs[0]
        for s in seqs:
            p = segs[s]
            if s < nxt:
                p = p[nxt - s:]
            out += p
            nxt = max(nxt, s + len(segs[s]))
        yield "tcp", flow, bytes(out)


def records(stream):
    o, rec = 0, bytearray()
    while o + 4 <= len(stream):
        mark = u32(stream, o)
        n = mark & 0x7FFFFFFF
        rec += stream[o + 4:o + 4 + n]
        o += 4 + n
        if mark & 0x80000000:
            yield bytes(rec)
            rec = bytearray()


def call_args(msg):
    """(xid, prog, vers, proc, args offset) of a call, or None."""
    try:
        xid, mtype, rpcvers, prog, vers, proc = struct.unpack_from(">6I", msg, 0)
        if mtype != 0:
            return None
        o = 24
        for _ in range(2):  # credential, verifier
            _, o = opaque(msg, o + 4)
        return xid, prog, vers, proc, o
    except struct.error:
        return None


def reply_body(msg):
    """(xid, offset of the results) of an accepted, successful reply, or None."""
    try:
        xid, mtype, stat = struct.unpack_from(">3I", msg, 0)
        if mtype != 1 or stat != 0:
            return None
        _, o = opaque(msg, 16)
        return (xid, o + 4) if u32(msg, o) == 0 else None
    except struct.error:
        return None


def learn(handles, call, cargs, res, export):
    """Record the handles a reply names, keyed by their bytes, valued by path."""
    prog, vers, proc = call[1], call[2], call[3]
    c, r = cargs, res

    def dirop():
        dfh, o = opaque(c, 0)
        name, _ = opaque(c, o)
        base = handles.get(dfh)
        if base is None:
            return None
        name = name.decode("latin-1")
        return name if base == "" else base + "/" + name

    if prog == MOUNT and vers == 3 and proc == 1 and u32(r, 0) == 0:
        path, _ = opaque(c, 0)
        path, root = path.decode("latin-1").rstrip("/"), export.rstrip("/")
        if path == root or path.startswith(root + "/"):
            handles[opaque(r, 4)[0]] = path[len(root):].strip("/")
    elif prog != NFS or u32(r, 0) != 0:
        return
    elif proc == 3:
        p = dirop()
        if p is not None:
            handles[opaque(r, 4)[0]] = p
    elif proc in (8, 9, 10, 11) and u32(r, 4) == 1:
        p = dirop()
        if p is not None:
            handles[opaque(r, 8)[0]] = p
    elif proc == 17:
        base = handles.get(opaque(c, 0)[0])
        if base is None:
            return
        o = 4
        o += 4 + (84 if u32(r, o) else 0) + 8  # dir_attributes, cookieverf
        while u32(r, o) == 1:
            o += 4 + 8  # value_follows, fileid
            name, o = opaque(r, o)
            o += 8  # cookie
            o += 4 + (84 if u32(r, o) else 0)
            if u32(r, o) == 1:
                fh, o = opaque(r, o + 4)
                name = name.decode("latin-1")
                if name not in (".", ".."):
                    handles[fh] = name if base == "" else base + "/" + name
            else:
                o += 4


def xdr_opaque(b):
    return struct.pack(">I", len(b)) + b + b"\0" * (-len(b) % 4)


def placeholders(msg, off, prog, proc, handles, export):
    args = msg[off:]
    if prog == MOUNT and proc in (1, 3):
        path, _ = opaque(args, 0)
        p = path.decode("latin-1")
        if p.startswith(export.rstrip("/")):
            rest = p[len(export.rstrip("/")):]
            args = xdr_opaque(b"SHOALDP:" + rest.encode("latin-1"))
    elif prog == NFS:
        out, o = bytearray(), 0
        while o < len(args):
            hit = None
            if o + 4 <= len(args):
                n = u32(args, o)
                if 0 < n <= 64 and args[o + 4:o + 4 + n] in handles:
                    hit = args[o + 4:o + 4 + n]
            if hit is not None:
                out += xdr_opaque(b"SHOALFH:" + handles[hit].encode("latin-1"))
                o += 4 + len(hit) + (-len(hit) % 4)
            else:
                out += args[o:o + 4]
                o += 4
        args = bytes(out)
    return msg[:off] + args


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: corpus_split.py CAPTURE.pcap EXPORT-PATH OUT-DIR")
    cap, export, outdir = sys.argv[1:]
    calls, replies, tcp_streams = [], [], []
    for kind, flow, payload in streams(cap):
        msgs = list(records(payload)) if kind == "tcp" else [payload]
        if kind == "tcp" and msgs and call_args(msgs[0]):
            tcp_streams.append(payload)
        for m in msgs:
            if call_args(m):
                calls.append((flow, m))
            elif reply_body(m):
                replies.append((flow, m))
    # Pair replies with calls by (client flow, xid).
    byxid = {}
    for flow, m in calls:
        byxid[(flow, u32(m, 0))] = m
    handles = {}
    for flow, m in replies:
        rflow = (flow[2], flow[3], flow[0], flow[1])
        c = byxid.get((rflow, u32(m, 0)))
        if c is None:
            continue
        ca = call_args(c)
        try:
            learn(handles, ca, c[ca[4]:], m[reply_body(m)[1]:], export)
        except (struct.error, IndexError):
            pass

    seeds = {}
    counts = {}

    def add(target, kind, data):
        key = (target, kind)
        if counts.get(key, 0) >= PER_KIND:
            return
        h = hashlib.sha1(data).hexdigest()[:12]
        name = "cap-%s-%s" % (kind, h)
        if (target, name) in seeds:
            return
        seeds[(target, name)] = data
        counts[key] = counts.get(key, 0) + 1

    names = {NFS: "nfs3", MOUNT: "mount", PMAP: "portmap"}
    for flow, m in calls:
        xid, prog, vers, proc, off = call_args(m)
        pname = names.get(prog, str(prog))
        kind = "%s.v%d.p%d" % (pname, vers, proc)
        add("rpc_call", kind, m)
        add("dispatch", kind, placeholders(m, off, prog, proc, handles, export))
        if prog in (NFS, MOUNT, PMAP):
            add(pname + "_args" if prog != NFS else "nfs3_args", kind,
                bytes([proc]) + m[off:])
    for flow, m in replies:
        rflow = (flow[2], flow[3], flow[0], flow[1])
        c = byxid.get((rflow, u32(m, 0)))
        if c is None:
            continue
        _, prog, vers, proc, _ = call_args(c)
        if prog in (MOUNT, PMAP):
            pname = names[prog]
            add(pname + "_args", "%s.v%d.p%d.reply" % (pname, vers, proc),
                bytes([proc]) + m[reply_body(m)[1]:])
    for i, s in enumerate(tcp_streams):
        add("recmark", "stream", bytes([5, i & 255]) + s[:RECMARK_MAX])
        add("recmark", "stream-small", bytes([3, (i * 7) & 255]) + s[:1024])

    for (target, name), data in sorted(seeds.items()):
        d = os.path.join(outdir, target, "corpus")
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name), "wb") as f:
            f.write(data)
    for t in sorted({t for t, _ in seeds}):
        print("%s: %d seeds" % (t, sum(1 for k in seeds if k[0] == t)))
    print("handles named: %d" % len(handles))


if __name__ == "__main__":
    main()
