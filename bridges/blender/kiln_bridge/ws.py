"""A small RFC 6455 WebSocket client over a plain socket.

Why hand-written: Blender's bundled Python has no WebSocket client and an add-on must not depend
on pip packages the artist's Blender lacks. Only what the bridge needs is here: the client
handshake (with a Bearer token and deliberately NO Origin header, which Kiln refuses), masked
client frames, fragmented messages, ping/pong, close, and size limits.

No bpy in this module: it is pure networking, so it can be tested and reasoned about alone.
Reading is non-blocking from the caller's point of view: `poll()` returns the complete
messages that have arrived, so the caller's loop (Blender's main thread) never waits on the
network. Writes use a timeout so that a stuck peer cannot hang Blender forever.
"""
import base64
import hashlib
import os
import select
import socket
import ssl
import struct
import time
import urllib.parse

GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

# Limits from docs/bridges.md ("Frames").
MAX_TEXT = 16 * 1024 * 1024
MAX_BINARY = 256 * 1024 * 1024
MAX_HANDSHAKE = 64 * 1024

OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class WSError(Exception):
    """The connection failed or the peer broke the protocol; the connection is unusable."""

    def __init__(self, message, status=None):
        super().__init__(message)
        self.status = status  # HTTP status of a refused upgrade (401, 403, 404), else None


def _mask(data, key):
    # XOR with the 4-byte key repeated. Big-integer XOR runs in C, so even a 256 MiB frame masks
    # in well under a second, where a Python byte loop would take minutes.
    n = len(data)
    if n == 0:
        return b""
    k = (key * (n // 4 + 1))[:n]
    return (int.from_bytes(data, "little") ^ int.from_bytes(k, "little")).to_bytes(n, "little")


def parse_url(url):
    """(secure, host, port, path) of a ws:// or wss:// URL."""
    u = urllib.parse.urlsplit(url)
    if u.scheme not in ("ws", "wss") or not u.hostname:
        raise WSError("the Kiln address must be a ws:// or wss:// URL, got %r" % url)
    port = u.port or (443 if u.scheme == "wss" else 80)
    path = (u.path or "/") + (("?" + u.query) if u.query else "")
    return u.scheme == "wss", u.hostname, port, path


class WebSocket:
    def __init__(self, sock):
        self.sock = sock
        self._buf = bytearray()
        self._frag_op = None  # opcode of a fragmented message in progress
        self._frag = []
        self._frag_len = 0
        self.closed = False
        self.close_code = None
        self.last_activity = 0.0  # monotonic time of the last bytes from the peer (pings count)

    # -- connecting ---------------------------------------------------------------------------

    @classmethod
    def connect(cls, url, token, timeout=2.0):
        """Opens the connection and completes the upgrade, or raises WSError.

        Blocking with a short timeout: Kiln listens on loopback, so a connect either succeeds or is
        refused at once; the timeout only matters for a hung peer.
        """
        secure, host, port, path = parse_url(url)
        try:
            sock = socket.create_connection((host, port), timeout=timeout)
        except OSError as e:
            raise WSError("cannot reach %s:%d (%s)" % (host, port, e.strerror or e))
        try:
            if secure:
                sock = ssl.create_default_context().wrap_socket(sock, server_hostname=host)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            key = base64.b64encode(os.urandom(16)).decode()
            host_header = host if ":" not in host else "[%s]" % host
            lines = [
                "GET %s HTTP/1.1" % path,
                "Host: %s:%d" % (host_header, port),
                "Upgrade: websocket",
                "Connection: Upgrade",
                "Sec-WebSocket-Key: " + key,
                "Sec-WebSocket-Version: 13",
            ]
            if token:
                lines.append("Authorization: Bearer " + token)
            # No Origin header: Kiln refuses upgrades carrying one (they come from browser pages).
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
            response = b""
            while b"\r\n\r\n" not in response:
                chunk = sock.recv(4096)
                if not chunk:
                    raise WSError("Kiln closed the connection during the upgrade")
                response += chunk
                if len(response) > MAX_HANDSHAKE:
                    raise WSError("the upgrade response is too long")
            head, rest = response.split(b"\r\n\r\n", 1)
            status_line, *header_lines = head.decode("latin-1").split("\r\n")
            parts = status_line.split(" ", 2)
            status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
            if status != 101:
                reason = {401: "wrong or missing bridge token", 403: "refused (Origin, Host or peer address)",
                          404: "no bridge endpoint at that path"}.get(status, parts[2] if len(parts) > 2 else "")
                raise WSError("Kiln answered %d to the upgrade: %s" % (status, reason), status=status)
            headers = {}
            for line in header_lines:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
            expected = base64.b64encode(hashlib.sha1((key + GUID).encode()).digest()).decode()
            if headers.get("sec-websocket-accept") != expected:
                raise WSError("the upgrade response has a wrong Sec-WebSocket-Accept")
            ws = cls(sock)
            ws._buf += rest
            # Writes keep a generous timeout (big blobs); reads only happen after select() said so.
            sock.settimeout(30.0)
            return ws
        except (OSError, ValueError) as e:
            sock.close()
            raise WSError("upgrade failed: %s" % e)
        except WSError:
            sock.close()
            raise

    # -- sending ------------------------------------------------------------------------------

    def _send_frame(self, opcode, payload):
        if self.closed:
            raise WSError("the connection is closed")
        n = len(payload)
        head = bytearray([0x80 | opcode])
        if n < 126:
            head.append(0x80 | n)
        elif n < 65536:
            head.append(0x80 | 126)
            head += struct.pack(">H", n)
        else:
            head.append(0x80 | 127)
            head += struct.pack(">Q", n)
        key = os.urandom(4)  # clients must mask every frame (RFC 6455 5.3)
        head += key
        try:
            self.sock.sendall(bytes(head) + _mask(payload, key))
        except OSError as e:
            self._dead()
            raise WSError("send failed: %s" % e)

    def send_text(self, text):
        data = text.encode("utf-8")
        if len(data) > MAX_TEXT:
            raise WSError("message of %d bytes exceeds the 16 MiB text limit" % len(data))
        self._send_frame(OP_TEXT, data)

    def send_binary(self, data):
        if len(data) > MAX_BINARY:
            raise WSError("blob of %d bytes exceeds the 256 MiB binary limit" % len(data))
        self._send_frame(OP_BINARY, bytes(data))

    def close(self, code=1000, reason=""):
        if not self.closed:
            try:
                self._send_frame(OP_CLOSE, struct.pack(">H", code) + reason.encode()[:120])
            except WSError:
                pass
        self._dead()

    def _dead(self):
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass

    # -- receiving ----------------------------------------------------------------------------

    def fileno(self):
        return self.sock.fileno()

    def poll(self, timeout=0.0):
        """Messages that arrived: a list of ("text", str) / ("binary", bytes).

        Waits at most `timeout` seconds for data. Pings are answered here. Raises WSError when
        the connection ends (close frame, EOF, protocol violation).
        """
        if self.closed:
            raise WSError("the connection is closed")
        messages = []
        ready, _, _ = select.select([self.sock], [], [], timeout)
        while ready:
            try:
                chunk = self.sock.recv(1 << 20)
            except (BlockingIOError, InterruptedError):
                break
            except ssl.SSLWantReadError:
                break
            except OSError as e:
                self._dead()
                raise WSError("receive failed: %s" % e)
            if not chunk:
                self._dead()
                raise WSError("Kiln closed the connection")
            self._buf += chunk
            self.last_activity = time.monotonic()
            # Drain what is already buffered without waiting again.
            ready, _, _ = select.select([self.sock], [], [], 0)
            if isinstance(self.sock, ssl.SSLSocket) and self.sock.pending():
                ready = [self.sock]
        self._parse(messages)
        return messages

    def _parse(self, out):
        buf = self._buf
        while True:
            if len(buf) < 2:
                return
            b0, b1 = buf[0], buf[1]
            fin, opcode, masked, n = b0 & 0x80, b0 & 0x0F, b1 & 0x80, b1 & 0x7F
            if b0 & 0x70:
                self._fail(1002, "reserved bits set (no extension was negotiated)")
            if masked:
                self._fail(1002, "the server masked a frame")
            pos = 2
            if n == 126:
                if len(buf) < 4:
                    return
                n = struct.unpack_from(">H", buf, 2)[0]
                pos = 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n = struct.unpack_from(">Q", buf, 2)[0]
                pos = 10
            # Refuse oversized frames from the header, before buffering their payload.
            limit = MAX_TEXT if (opcode == OP_TEXT or (opcode == OP_CONT and self._frag_op == OP_TEXT)) else MAX_BINARY
            if opcode >= 0x8 and (n > 125 or not fin):
                self._fail(1002, "bad control frame")
            if n + (self._frag_len if opcode == OP_CONT else 0) > limit:
                self._fail(1009, "message too big")
            if len(buf) < pos + n:
                return
            payload = bytes(buf[pos:pos + n])
            del buf[:pos + n]
            if opcode == OP_PING:
                self._send_frame(OP_PONG, payload)
            elif opcode == OP_PONG:
                pass
            elif opcode == OP_CLOSE:
                self.close_code = struct.unpack(">H", payload[:2])[0] if len(payload) >= 2 else 1005
                self.close(1000)
                raise WSError("Kiln closed the connection (%s)" % self.close_code)
            elif opcode in (OP_TEXT, OP_BINARY):
                if self._frag_op is not None:
                    self._fail(1002, "a new message began inside a fragmented one")
                if fin:
                    out.append(self._message(opcode, payload))
                else:
                    self._frag_op, self._frag, self._frag_len = opcode, [payload], n
            elif opcode == OP_CONT:
                if self._frag_op is None:
                    self._fail(1002, "continuation without a message")
                self._frag.append(payload)
                self._frag_len += n
                if fin:
                    op, data = self._frag_op, b"".join(self._frag)
                    self._frag_op, self._frag, self._frag_len = None, [], 0
                    out.append(self._message(op, data))
            else:
                self._fail(1002, "unknown opcode %d" % opcode)

    def _message(self, opcode, payload):
        if opcode == OP_TEXT:
            try:
                return ("text", payload.decode("utf-8"))
            except UnicodeDecodeError:
                self._fail(1007, "text frame is not UTF-8")
        return ("binary", payload)

    def _fail(self, code, reason):
        self.close(code, reason)
        raise WSError("protocol error from Kiln: " + reason)
