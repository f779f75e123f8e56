"""Dev check of the add-on's WebSocket client (kiln_bridge/ws.py) and blob frames, without Blender.

Run:  python3 tests/interop/blender/ws_test.py     (exit 0 when every check passes)

A socketpair plays the server's side byte by byte: fragmented messages with a ping between the
fragments, masking of the client's frames, close, the size limits, and a mesh blob round trip.
"""
import array
import importlib.util
import os
import socket
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PKG = os.path.join(HERE, "..", "..", "..", "bridges", "blender", "kiln_bridge")


def load(name):
    # ws.py and blobs.py need no bpy: load them alone, without the package's __init__ (which does).
    spec = importlib.util.spec_from_file_location(name, os.path.join(PKG, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ws = load("ws")
blobs = load("blobs")
failures = []


def check(name, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(detail)))
    if not ok:
        failures.append(name)


def frame(opcode, payload, fin=True):
    n = len(payload)
    head = bytes([(0x80 if fin else 0) | opcode])
    if n < 126:
        head += bytes([n])
    elif n < 65536:
        head += bytes([126]) + struct.pack(">H", n)
    else:
        head += bytes([127]) + struct.pack(">Q", n)
    return head + payload


def read_client_frame(sock):
    """One frame the client sent: (opcode, unmasked payload, was masked)."""
    def exact(n):
        b = b""
        while len(b) < n:
            b += sock.recv(n - len(b))
        return b
    b0, b1 = exact(2)
    n = b1 & 0x7F
    if n == 126:
        n = struct.unpack(">H", exact(2))[0]
    elif n == 127:
        n = struct.unpack(">Q", exact(8))[0]
    key = exact(4) if b1 & 0x80 else b""
    data = exact(n)
    if key:
        data = bytes(c ^ key[i % 4] for i, c in enumerate(data))
    return b0 & 0x0F, data, bool(key)


def pair():
    a, b = socket.socketpair()
    a.settimeout(5)
    b.settimeout(5)
    return ws.WebSocket(a), b


# Fragmented text with a ping in the middle, sent in tiny pieces.
client, server = pair()
stream = frame(1, "hé".encode()[:2], fin=False) + frame(9, b"p1") + frame(0, "hé".encode()[2:] + b" there")
for i in range(len(stream)):
    server.sendall(stream[i:i + 1])
got = []
for _ in range(50):
    got += client.poll(0.05)
    if got:
        break
check("fragmented text reassembled across a ping", got == [("text", "hé there")], got)
op, data, masked = read_client_frame(server)
check("ping answered with a masked pong", op == 0xA and data == b"p1" and masked, (op, data, masked))

client.send_text("héllo")
op, data, masked = read_client_frame(server)
check("client text frame masked", op == 1 and data == "héllo".encode() and masked)

big = os.urandom(70000)
client.send_binary(big)
op, data, masked = read_client_frame(server)
check("64-bit length binary frame, masked", op == 2 and data == big and masked)

# A mesh blob round trip through the binary frame format.
pos = array.array("f", [0, 0, 0, 1, 0, 0, 0, 1, 0])
nor = array.array("f", [0, 0, 1] * 3)
idx = array.array("I", [0, 1, 2])
key, kind, value = blobs.decode(blobs.encode_mesh("mesh/x", pos, nor, idx))
check("mesh blob round trip", key == "mesh/x" and kind == "mesh" and list(value["positions"]) == list(pos) and list(value["indices"]) == [0, 1, 2])
try:
    blobs.decode(struct.pack("<I", 10) + b"{}")
    check("bad blob header refused", False)
except blobs.BlobError:
    check("bad blob header refused", True)

# Limits: a text frame announcing more than 16 MiB is refused from its header alone.
server.sendall(bytes([0x81, 127]) + struct.pack(">Q", 16 * 1024 * 1024 + 1))
try:
    for _ in range(20):
        client.poll(0.05)
    check("oversized text frame refused", False, "accepted")
except ws.WSError as e:
    check("oversized text frame refused", "too big" in str(e), e)
op, data, _ = read_client_frame(server)
check("close 1009 sent", op == 8 and struct.unpack(">H", data[:2])[0] == 1009, (op, data))

# A masked frame from the server is a protocol error.
client, server = pair()
server.sendall(bytes([0x81, 0x82]) + b"\0\0\0\0" + b"hi")
try:
    for _ in range(20):
        client.poll(0.05)
    check("masked server frame refused", False)
except ws.WSError:
    check("masked server frame refused", True)

# Close from the server: echoed, then the connection is over.
client, server = pair()
server.sendall(frame(8, struct.pack(">H", 1001)))
try:
    for _ in range(20):
        client.poll(0.05)
    check("close ends the connection", False)
except ws.WSError:
    op, data, _ = read_client_frame(server)
    check("close ends the connection and is echoed", client.closed and op == 8 and client.close_code == 1001)

print("%d failure(s)" % len(failures))
sys.exit(1 if failures else 0)
