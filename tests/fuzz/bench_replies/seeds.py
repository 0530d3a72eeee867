#!/usr/bin/env python3
# seeds.py - write the seed corpus of the bench_replies fuzz target (corpus/seed-*): for
# each NFSv3 result decoder, a stream of well-formed RPC replies carrying that result,
# in one fragment, in several, and with a long READ reply that bench_conn cuts; plus a
# denied reply and a stream that is not RPC. Input layout: see fuzz_bench_replies.c.
#
#   python3 tests/fuzz/bench_replies/seeds.py
import os
import struct

here = os.path.dirname(os.path.abspath(__file__))


def u32(*v):
    return b''.join(struct.pack('>I', x) for x in v)


def u64(v):
    return struct.pack('>Q', v)


def opaque(b):
    return u32(len(b)) + b + b'\0' * (-len(b) % 4)


def fattr(size=4096):
    return (u32(1, 0o644, 1, 0, 0) + u64(size) + u64(size) + u32(0, 0) + u64(1) + u64(42) +
            u32(1, 0, 2, 0, 3, 0))


def post_op():
    return u32(1) + fattr()


def wcc():
    return u32(1) + u64(4096) + u32(2, 0, 3, 0) + post_op()


FH = opaque(bytes(range(32)))
BODIES = [
    post_op(),                                            # 0 post_op_attr
    wcc(),                                                # 1 wcc_data
    u32(0) + FH + post_op() + post_op(),                  # 2 LOOKUP
    u32(0) + u32(1) + FH + post_op() + wcc(),             # 3 CREATE/MKDIR (diropres)
    u32(0) + post_op() + u32(5, 1) + opaque(b'hello'),    # 4 READ
    u32(0) + wcc() + u32(4096, 2) + b'verifier',          # 5 WRITE
    u32(0) + wcc(),                                       # 6 REMOVE (wccstat)
    u32(0) + post_op() + u32(1 << 20, 1 << 20, 4096, 1 << 20, 1 << 20, 4096, 65536) +
    u64(1 << 62) + u32(0, 1) + u32(0x1b),                 # 7 FSINFO
]


def reply(xid, body):
    return u32(xid, 1, 0, 0, 0, 0) + body          # REPLY, MSG_ACCEPTED, AUTH_NONE, SUCCESS


def record(msg, frags=1):
    out, step = b'', max(4, (len(msg) + frags - 1) // frags)
    for i in range(0, len(msg), step):
        part = msg[i:i + step]
        last = i + step >= len(msg)
        out += u32(len(part) | (0x80000000 if last else 0)) + part
    return out


def write(name, data):
    with open(os.path.join(here, 'corpus', 'seed-' + name), 'wb') as f:
        f.write(data)


os.makedirs(os.path.join(here, 'corpus'), exist_ok=True)
for sel, body in enumerate(BODIES):
    stream = record(reply(1, body)) + record(reply(2, body))
    write('%d-whole' % sel, bytes([sel, 0, 255]) + stream)
    write('%d-pieces' % sel, bytes([sel, 0, 3]) + record(reply(3, body), frags=3))
big = u32(0) + post_op() + u32(3000, 0) + opaque(b'x' * 3000)
write('4-cut', bytes([4, 4, 2]) + record(reply(4, big)) + record(reply(5, BODIES[4])))
write('denied', bytes([2, 0, 255]) + record(u32(6, 1, 1, 1, 1)) + record(reply(7, BODIES[2])))
write('not-rpc', bytes([0, 0, 255]) + record(u32(8, 0, 2, 100003)))
