"""Binary frames ("blobs") of docs/bridges.md: u32 LE header length, JSON header, payload.

Mesh arrays travel as raw little-endian float32/uint32 bytes (array.array, no numpy needed),
so a big mesh costs one memory copy rather than millions of JSON numbers.
"""
import array
import json
import struct
import sys

# array.array uses the machine's byte order; the protocol is little-endian.
_SWAP = sys.byteorder != "little"


class BlobError(Exception):
    pass


def _typed(code, data):
    a = array.array(code)
    a.frombytes(data)
    if _SWAP:
        a.byteswap()
    return a


def _bytes(a):
    if _SWAP:
        a = array.array(a.typecode, a)
        a.byteswap()
    return a.tobytes()


def decode(frame):
    """(key, kind, value) of a binary frame. value: {"positions","normals","indices"} arrays or PNG bytes."""
    if len(frame) < 4:
        raise BlobError("binary frame shorter than its header length")
    (hlen,) = struct.unpack_from("<I", frame, 0)
    if hlen > len(frame) - 4 or hlen > 1 << 20:
        raise BlobError("binary frame header length %d is out of range" % hlen)
    try:
        header = json.loads(bytes(frame[4:4 + hlen]).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise BlobError("binary frame header is not JSON")
    if not isinstance(header, dict) or not isinstance(header.get("blob"), str) or not header["blob"]:
        raise BlobError("binary frame header has no blob key")
    payload = memoryview(frame)[4 + hlen:]
    kind = header.get("kind")
    if kind == "png":
        return header["blob"], "png", bytes(payload)
    if kind != "mesh":
        raise BlobError("unknown blob kind %r" % (kind,))
    parts = header.get("parts")
    if not isinstance(parts, dict):
        raise BlobError("mesh blob without parts")
    out = {}
    for name, code in (("positions", "f"), ("normals", "f"), ("indices", "I")):
        span = parts.get(name)
        if name == "normals" and span is None:
            out[name] = array.array("f")
            continue
        if (not isinstance(span, list) or len(span) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in span)
                or span[0] + span[1] > len(payload) or span[1] % 4):
            raise BlobError("mesh blob part %r is not a valid [offset, length] of the payload" % name)
        out[name] = _typed(code, payload[span[0]:span[0] + span[1]])
    if array.array("I").itemsize != 4:
        raise BlobError("this platform's uint32 array is not 4 bytes")
    return header["blob"], "mesh", out


def encode_mesh(key, positions, normals, indices):
    parts, chunks, offset = {}, [], 0
    for name, a in (("positions", positions), ("normals", normals), ("indices", indices)):
        b = _bytes(a)
        parts[name] = [offset, len(b)]
        chunks.append(b)
        offset += len(b)
    return _frame({"blob": key, "kind": "mesh", "parts": parts}, b"".join(chunks))


def encode_png(key, data):
    return _frame({"blob": key, "kind": "png"}, data)


def _frame(header, payload):
    h = json.dumps(header, separators=(",", ":")).encode("utf-8")
    return struct.pack("<I", len(h)) + h + payload
