"""The bridge session: connection, handshake, Kiln's requests and the app's edits (docs/bridges.md).

Everything here runs on Blender's main thread, driven by `tick()`: from the background loop
(loop.py) under -b, or from a bpy.app.timers callback with a UI. The socket is only read when
select() says data is there, so a tick never blocks on the network.

Messages are data only: each request type maps to one fixed handler; nothing received is ever
executed, evaluated, or used to look up an operator.
"""
import json
import sys
import time
import traceback
import uuid

import bpy

from . import apply, blobs, meshes, records, requests, stamp
from .observer import Observer
from .validate import Refused
from .ws import WSError, WebSocket

PROTOCOL = 2
RECORDS_PER_FRAME = 5000  # records per `records` frame of the first sync (Kiln takes up to 10,000)
INSTANCE = uuid.uuid4().hex  # one per Blender process
SILENCE = 30.0  # seconds without any frame from Kiln: the connection is dead
# 0.25 s doubling to a 1.5 s cap: in within 2 s of Kiln serving, whichever started first; a refused
# connect to a loopback port costs next to nothing.
BACKOFF_MIN, BACKOFF_MAX = 0.25, 1.5
ALREADY_CONNECTED_WAIT = 5.0
BUSY_WINDOW = 0.05  # Kiln sent a request this recently: a recipe or a client is streaming changes


def log(*args):
    print("kiln_bridge:", *args, file=sys.stderr, flush=True)


class Session:
    def __init__(self, url, token, max_backoff=BACKOFF_MAX):
        self.url, self.token = url, token
        self.max_backoff = max_backoff
        self.ws = None
        self.state = "disconnected"  # disconnected | hello | live
        self.enabled = True
        self.backoff = BACKOFF_MIN
        self.next_attempt = 0.0
        self.last_rx = 0.0
        self.last_request = 0.0  # when Kiln's last request arrived (the loop defers evaluation meanwhile)
        self.project = None
        self.session_id = None
        self.last_seq = None
        self.last_error = ""
        self.inbox_blobs = {}  # blobs received, for the next text frame
        self.next_id = 0
        self.inflight = {}  # our edit request id -> {blob KEY: (mesh name, fingerprint)}
        self.observer = Observer()
        self.observer.reset(records.dump(verify_mesh=True))
        st, _ = stamp.read()
        self.last_seq = st["seq"] if st else None

    # -- driving ------------------------------------------------------------------------------

    def tick(self, timeout=0.0):
        """One turn: connect if due, read and answer what arrived (waiting up to `timeout`), observe."""
        now = time.monotonic()
        if self.ws is None:
            if self.enabled and now >= self.next_attempt:
                self._connect()
            elif timeout:
                time.sleep(min(timeout, max(0.0, self.next_attempt - now)) if self.enabled else timeout)
        if self.ws is not None:
            try:
                for kind, data in self.ws.poll(timeout):
                    self.last_rx = time.monotonic()
                    if kind == "binary":
                        self._blob(data)
                    else:
                        self._text(data)
                if self.ws is not None and self.ws.last_activity:
                    self.last_rx = max(self.last_rx, self.ws.last_activity)
                if self.ws is not None and time.monotonic() - self.last_rx > SILENCE:
                    self._drop("no frame from Kiln for %d s" % SILENCE)
            except WSError as e:
                self._drop(str(e))
        self._observe()

    def disconnect(self):
        """Leaves on purpose (the user disconnected, Blender quits): `bye` tells Kiln it is no crash."""
        self.enabled = False
        if self.ws is not None:
            if self.state == "live":
                try:
                    self.ws.send_text(json.dumps({"type": "bye"}))
                except WSError:
                    pass
            self.ws.close(1000, "bye")
        self._drop("", quiet=True)

    def reconnect_now(self):
        self.enabled = True
        if self.ws is not None:
            self.ws.close(1001, "reconnect")
            self._drop("", quiet=True)
        self.backoff = BACKOFF_MIN
        self.next_attempt = 0.0

    def file_loaded(self):
        """A different .blend was opened: its records are the new baseline, and Kiln must hear a new hello."""
        self.observer.reset(records.dump(verify_mesh=True))
        st, _ = stamp.read()
        self.last_seq = st["seq"] if st else None
        if self.ws is not None:
            self.reconnect_now()

    # -- connection ---------------------------------------------------------------------------

    def _connect(self):
        try:
            self.ws = WebSocket.connect(self.url, self.token)
        except WSError as e:
            self._retry_later(str(e))
            return
        self.last_rx = time.monotonic()
        try:
            self._send_hello()
        except WSError as e:
            self._drop(str(e))

    def _retry_later(self, error):
        if error and error != self.last_error:
            log(error)
        if error:
            self.last_error = error
        self.next_attempt = time.monotonic() + self.backoff
        self.backoff = min(self.backoff * 2, self.max_backoff)

    def _drop(self, error, quiet=False):
        if self.ws is not None and not self.ws.closed:
            self.ws.close(1001)
        was_live = self.state == "live"
        self.ws = None
        self.state = "disconnected"
        self.session_id = None
        self.inbox_blobs.clear()
        self.inflight.clear()
        if was_live:
            self.backoff = BACKOFF_MIN
        if not quiet:
            self._retry_later(error)

    def _send_hello(self):
        # Edits made since the last scan, while disconnected, are offline edits: the hello must say
        # dirty, or Kiln would push its state over them.
        changed, deleted = self.observer.scan(mode="full")
        if changed or deleted:
            self.observer.agree(changed, deleted)
            stamp.write(dirty=True)
        recs = records.dump(verify_mesh=True)
        # Every non-primitive mesh travels as a blob in the hello: Kiln may not have it (a file
        # it has never seen), and the blob's KEY is its mesh id when the bridge knows one.
        tagged = {}
        for r in recs:
            if r.get("type") == "object" and isinstance(r.get("mesh"), str) and r["mesh"].startswith("mesh/"):
                tagged.setdefault(r["mesh"], None)
        if tagged:
            world = apply.World()
            for mid in tagged:
                tagged[mid] = world.mesh_tagged(mid)
            for r in recs:
                if r.get("type") == "object" and r.get("mesh") in tagged:
                    r["mesh"] = "blob:" + r["mesh"]
        st, dirty = stamp.read()
        # Protocol 2: a small hello, then the scene in `records` frames (any size of scene fits),
        # the mesh blobs first, then `sync` (docs/bridges.md, "Handshake").
        self.ws.send_text(json.dumps({
            "type": "hello", "protocol": PROTOCOL, "app": "blender", "app_version": bpy.app.version_string,
            "instance": INSTANCE, "file": bpy.data.filepath, "stamp": st, "dirty": dirty,
        }, separators=(",", ":")))
        self._hello_keys = self._send_blobs(recs, extra={k: m for k, m in tagged.items() if m is not None})
        for i in range(0, len(recs), RECORDS_PER_FRAME):
            self.ws.send_text(json.dumps({"type": "records", "records": recs[i:i + RECORDS_PER_FRAME]}, separators=(",", ":")))
        self.ws.send_text('{"type":"sync"}')
        self._hello_records = recs
        self.state = "hello"

    def _send_blobs(self, recs, extra=None):
        """Sends the mesh blobs these records reference; returns {KEY: (mesh name, fingerprint)}."""
        sent = {}
        wanted = records.mesh_blobs(recs)
        for key, mesh in (extra or {}).items():
            wanted[key] = mesh
        for key, mesh in wanted.items():
            pos, nor, idx = meshes.arrays_of(mesh, exact=key in (extra or {}))
            self.ws.send_binary(blobs.encode_mesh(key, pos, nor, idx))
            sent[key] = (mesh.name, meshes.fingerprint(mesh))
        return sent

    # -- receiving ----------------------------------------------------------------------------

    def _blob(self, data):
        try:
            key, kind, value = blobs.decode(data)
        except blobs.BlobError as e:
            log("ignored a bad binary frame:", e)
            return
        self.inbox_blobs[key] = value

    def _text(self, text):
        try:
            msg = json.loads(text)
        except ValueError:
            log("ignored a frame that is not JSON")
            return
        try:
            if not isinstance(msg, dict):
                return
            t = msg.get("type")
            if t == "welcome":
                self._welcome(msg)
            elif t == "refused":
                self.last_error = "Kiln refused the connection: %s %s" % (msg.get("code"), msg.get("message"))
                log(self.last_error)
                self._drop(self.last_error)
                # Another Blender holds the project: do not hammer Kiln.
                if msg.get("code") == "APP_ALREADY_CONNECTED":
                    self.next_attempt = time.monotonic() + ALREADY_CONNECTED_WAIT
            elif t == "reply":
                self._reply(msg)
            elif isinstance(msg.get("id"), str):
                self._request(msg)
        finally:
            # A blob is for the next text frame only.
            self.inbox_blobs.clear()

    def _welcome(self, msg):
        if msg.get("protocol") != PROTOCOL:
            self._drop("Kiln speaks protocol %r, this add-on %d" % (msg.get("protocol"), PROTOCOL))
            return
        self.state = "live"
        self.backoff = BACKOFF_MIN
        self.last_error = ""
        self.project = msg.get("project") if isinstance(msg.get("project"), str) else None
        self.session_id = msg.get("session")
        # What Kiln now holds of us is the hello, with the mesh ids it gave our blobs (if it says).
        ids = msg.get("meshes") if isinstance(msg.get("meshes"), dict) else {}
        self._tag_meshes(self._hello_keys, ids)
        recs = []
        for r in self._hello_records:
            m = r.get("mesh")
            if isinstance(m, str) and m.startswith("blob:"):
                key = m[5:]
                r = dict(r, mesh=ids.get(key) or (key if key.startswith("mesh/") else m))
            recs.append(r)
        self.observer.reset(recs)
        seq = msg.get("seq")
        if isinstance(seq, int) and not isinstance(seq, bool):
            self.last_seq = seq
        st, _ = stamp.read()
        if self.project:
            stamp.write(project=self.project, seq=self.last_seq if self.last_seq is not None else (st["seq"] if st and st["project"] == self.project else 0), dirty=False)
        log("connected to Kiln (project %s)" % self.project)

    def _tag_meshes(self, sent, ids):
        for key, mesh_id in ids.items():
            entry = sent.get(key)
            if entry and isinstance(mesh_id, str) and mesh_id.startswith("mesh/"):
                mesh = bpy.data.meshes.get(entry[0])
                if mesh is not None:
                    meshes.tag(mesh, mesh_id=mesh_id, fp=entry[1])
                    for rid, r in list(self.observer.agreed.items()):
                        if r.get("mesh") == "blob:" + key:
                            self.observer.agreed[rid] = dict(r, mesh=mesh_id)

    def _reply(self, msg):
        sent = self.inflight.pop(msg.get("id"), None)
        if sent is None:
            return
        if msg.get("ok"):
            result = msg.get("result") or {}
            self._tag_meshes(sent, result.get("meshes") or {})
            if isinstance(result.get("seq"), int):
                self.last_seq = result["seq"]
                stamp.write(seq=self.last_seq)
        else:
            err = msg.get("error") or {}
            self.last_error = "Kiln refused an edit: %s %s" % (err.get("code"), err.get("message"))
            log(self.last_error)

    def _request(self, msg):
        self.last_request = time.monotonic()
        rid, t = msg["id"], msg.get("type")
        if t == "ping":  # Kiln's heartbeat: answered at once
            self._answer(rid, result={})
            return
        deadline = msg.get("deadline")
        if isinstance(deadline, (int, float)) and not isinstance(deadline, bool) and time.time() * 1000 > deadline:
            # Kiln has given up on this request (docs/bridges.md, "Requests and replies"): doing it
            # now would leave Blender with a change Kiln does not have.
            self._answer(rid, error=("EXPIRED", "Blender was busy until after the request's deadline; it was not carried out"))
            return
        handler = {"apply": self._apply, "render": self._render, "save": self._save, "export": self._export,
                   "dump": self._dump}.get(t)
        if handler is None:
            self._answer(rid, error=("UNKNOWN_REQUEST", "Blender's bridge does not know requests of type %r" % (t,)))
            return
        try:
            result = handler(msg)
        except Refused as e:
            self.last_error = str(e)
            self._answer(rid, error=("APP_REFUSED", str(e)))
            return
        except WSError:
            raise
        except Exception as e:  # a bug or a Blender error: answer it rather than leave Kiln waiting
            traceback.print_exc()
            self.last_error = "%s: %s" % (type(e).__name__, e)
            self._answer(rid, error=("APP_REFUSED", "Blender failed: %s: %s" % (type(e).__name__, e)))
            return
        self._answer(rid, result=result)

    def _answer(self, rid, result=None, error=None):
        if self.ws is None:
            return
        if error:
            msg = {"type": "reply", "id": rid, "ok": False, "error": {"code": error[0], "message": error[1]}}
        else:
            msg = {"type": "reply", "id": rid, "ok": True, "result": result if result is not None else {}}
        self.ws.send_text(json.dumps(msg, separators=(",", ":")))

    # -- Kiln's requests ----------------------------------------------------------------------

    def _apply(self, msg):
        changes, seq = msg.get("changes"), msg.get("seq")
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise Refused("seq must be an integer")
        label = msg.get("label") if isinstance(msg.get("label"), str) else "Kiln"
        # Observe first: a hand edit made just before must not be mistaken for Kiln's change.
        self._observe(force=True)
        # No evaluation here: rebuilding the depsgraph after adding an object costs ~27 ms at 1,000
        # objects, on every apply. Whatever reads evaluated data (render, export, dumps) evaluates
        # the scene it needs first; Blender evaluates the scene on screen by itself.
        apply.apply_changes(changes, dict(self.inbox_blobs))
        self.observer.agree([c["after"] for c in changes if c.get("after") is not None],
                            [c["id"] for c in changes if c.get("after") is None])
        self.last_seq = seq
        stamp.write(project=self.project, seq=seq, dirty=False)
        if not bpy.app.background:
            try:
                bpy.ops.ed.undo_push(message=label[:60])
            except RuntimeError:
                pass  # no undo stack in this context; the change stands
        return {}

    def _render(self, msg):
        png, result = requests.render(msg)
        key = "png:%d" % self._new_id()
        self.ws.send_binary(blobs.encode_png(key, png))
        return dict(result, blob=key)

    def _save(self, msg):
        return requests.save(msg, lambda: stamp.write(project=self.project, seq=self.last_seq))

    def _export(self, msg):
        return requests.export(msg)

    def _dump(self, msg):
        recs = records.dump(verify_mesh=True)
        self._send_blobs(recs)
        return {"records": recs}

    # -- the artist's edits -------------------------------------------------------------------

    def _new_id(self):
        self.next_id += 1
        return self.next_id

    def _observe(self, force=False):
        obs = self.observer
        now = time.monotonic()
        if force:
            # Before Kiln's apply: take in what the depsgraph already reported, without paying
            # for a full scan on every request (the periodic one finds the rest).
            mode = "full" if obs.other else ("objects" if obs.objects else None)
        else:
            mode = obs.due(now, busy=now - self.last_request < BUSY_WINDOW)
        if mode is None:
            return
        if self.state == "hello":
            return  # the hello carried the scene; the welcome decides the baseline
        changed, deleted = obs.scan(now, mode)
        if not changed and not deleted:
            return
        if self.state != "live":
            # Not connected: Kiln will hear of it in the next hello (dirty), as the whole scene.
            obs.agree(changed, deleted)
            stamp.write(dirty=True)
            return
        order = {"app": 0, "scene": 1, "material": 2, "object": 3}
        changed.sort(key=lambda r: (order.get(r["type"], 9), r.get("scene", ""), r.get("name", "")))
        rid = "b%d" % self._new_id()
        try:
            sent = self._send_blobs(changed)
            self.ws.send_text(json.dumps({"type": "edit", "id": rid, "records": changed, "deleted": deleted},
                                         separators=(",", ":")))
        except WSError as e:
            self._drop(str(e))
            stamp.write(dirty=True)
            return
        self.inflight[rid] = sent
        obs.agree(changed, deleted)
