# The connection to Kiln (docs/bridges.md): connects out, reconnects with backoff in any start
# order, says hello, answers Kiln's requests (apply, save, render, dump) and reports the artist's
# edits. Polled from the plugin's _process: all work happens on the editor's main thread.
# Every request is one of a fixed set, carrying data only: nothing received is ever run as code.
extends Reference

const Blobs = preload("res://addons/kiln/blobs.gd")
const Records = preload("res://addons/kiln/records.gd")

const PROTOCOL = 2
const RECORDS_PER_FRAME = 5000  # records per `records` frame of the first sync (Kiln takes up to 10,000)
const BACKOFF_MIN = 250
const BACKOFF_MAX = 1500
const ALREADY_CONNECTED_WAIT = 5000
const SILENCE_MS = 30000
const HANDSHAKE_MS = 5000
const HEARTBEAT_MS = 10000
const FRAME_WAIT_USEC = 20000
const FRAME_BUDGET_USEC = 60000

var plugin
var records
var url = ""
var token = ""
var state = "disconnected"  # disconnected | connecting | hello | live
var last_error = ""
var last_logged = ""
var project = ""
var session_id = ""
var since = 0
var ws: WebSocketClient
var backoff = BACKOFF_MIN
var next_attempt = 0
var attempt_started = 0
var last_heard = 0
var last_sent = 0
var inbox_blobs = {}
var agreed = {}  # id -> record: what Kiln and this editor last agreed on
var next_id = 0
var hello_blobs = {}
var hello_records = []
var instance = ""
var applying = false
var enabled = true
var compare_due = false
var next_compare = 0
var compare_cost = 0
var last_seq = 0
var busy_until = 0
var apply_usec = 0  # time spent applying Kiln's changes, for the benches


func _init(p):
	plugin = p
	records = Records.new(p)
	randomize()
	instance = "%08x%08x" % [randi(), randi()]


func configure(u: String, t: String) -> void:
	if u != url or t != token:
		url = u
		token = t
		if state != "disconnected":
			_drop("the address or token changed", true)
		next_attempt = 0


func say(text: String) -> void:
	print("kiln bridge: ", text)


# -- the loop --------------------------------------------------------------------------------

func poll() -> void:
	var now = OS.get_ticks_msec()
	if state != "live" and records.root() != baseline_root:
		_take_baseline()
	if state == "disconnected":
		if enabled and now >= next_attempt and records.root() != null and url != "":
			_connect()
		elif records.root() != null and (compare_due or now >= next_compare):
			_observe(now)
		return
	ws.poll()
	if ws == null:
		return
	if state == "connecting" and now - attempt_started > HANDSHAKE_MS:
		_drop("no answer from Kiln at %s" % url)
		return
	# While Kiln sends requests one after another (a recipe), answer them within this frame: the
	# reply is flushed at once and the next request is waited for up to FRAME_WAIT_USEC, within a
	# FRAME_BUDGET_USEC budget, instead of paying an editor frame per request. An editor frame
	# grows with the scene (the scene dock redraws after each added node: ~50 ms at 1,000 nodes),
	# so the wait must outlast Kiln's own time between two steps even on a loaded machine; the
	# editor still gets a frame at least every 60 ms (measured: 1,000-step recipe 51.9 s with a
	# 3 ms wait, 4.2 s with 20 ms).
	var start = OS.get_ticks_usec()
	var last = start
	while ws and state != "disconnected":
		var peer = ws.get_peer(1)
		if peer.get_available_packet_count() == 0:
			var t = OS.get_ticks_usec()
			if t - last > FRAME_WAIT_USEC or t - start > FRAME_BUDGET_USEC or not busy():
				break
			OS.delay_usec(100)
			ws.poll()
			continue
		var data = peer.get_packet()
		last_heard = OS.get_ticks_msec()
		busy_until = last_heard + 500
		if peer.was_string_packet():
			_text(data.get_string_from_utf8())
		else:
			_blob(data)
		if ws:
			ws.poll()  # sends the reply now, not at the next frame
		last = OS.get_ticks_usec()
	if ws == null:
		return
	if state == "live":
		if importing.size():
			_poll_imports()
		if now - last_heard > SILENCE_MS:
			_drop("Kiln has been silent for 30 s")
			return
		if compare_due or (now >= next_compare and not busy()):
			_observe(now)


func busy() -> bool:
	return OS.get_ticks_msec() < busy_until


func _connect() -> void:
	ws = WebSocketClient.new()
	# Hellos, restores and meshes are larger than the 64 KiB default buffers.
	ws.set_buffers(16384, 4096, 16384, 4096)
	ws.connect("connection_established", self, "_established")
	ws.connect("connection_error", self, "_failed")
	ws.connect("connection_closed", self, "_closed")
	ws.connect("server_close_request", self, "_close_request")
	var headers = PoolStringArray(["Authorization: Bearer " + token])
	var err = ws.connect_to_url(url, PoolStringArray(), false, headers)
	if err != OK:
		ws = null
		_retry_later("cannot connect to %s (error %d)" % [url, err])
		return
	state = "connecting"
	attempt_started = OS.get_ticks_msec()


func _established(_protocol) -> void:
	ws.get_peer(1).set_write_mode(WebSocketPeer.WRITE_MODE_TEXT)
	last_heard = OS.get_ticks_msec()
	_send_hello()


func _failed() -> void:
	_drop("could not connect to Kiln at %s (not running, or the bridge token was refused: 401)" % url)


func _close_request(code, reason) -> void:
	last_error = "Kiln closed the connection (%d %s)" % [code, reason]


func _closed(_clean) -> void:
	_drop(last_error if last_error != "" else "the connection closed")


func _retry_later(error: String) -> void:
	last_error = error
	next_attempt = OS.get_ticks_msec() + backoff
	backoff = min(backoff * 2, BACKOFF_MAX)


func _drop(error: String, quiet = false) -> void:
	var was_live = state == "live"
	if ws:
		var old = ws
		ws = null
		old.disconnect("connection_closed", self, "_closed")
		old.disconnect_from_host(1000, "bye")
	state = "disconnected"
	inbox_blobs.clear()
	if was_live:
		backoff = BACKOFF_MIN
		say("disconnected: " + error)
	elif not quiet and error != last_logged:
		say(error)  # once per kind of failure, not at every retry
	last_logged = error
	if not quiet:
		_retry_later(error)


# Closes on purpose (the user disconnects, the editor quits): Kiln takes the goodbye.
func goodbye() -> void:
	if ws and state == "live":
		_send_text({"type": "bye"})
		ws.poll()
	enabled = false
	_drop("disconnected by the user", true)


func reconnect_now() -> void:
	enabled = true
	if state != "disconnected":
		_drop("reconnecting", true)
	backoff = BACKOFF_MIN
	next_attempt = 0


# -- sending ---------------------------------------------------------------------------------

func _send_text(msg: Dictionary) -> void:
	var peer = ws.get_peer(1)
	peer.set_write_mode(WebSocketPeer.WRITE_MODE_TEXT)
	peer.put_packet(JSON.print(msg).to_utf8())
	last_sent = OS.get_ticks_msec()


func _send_binary(bytes: PoolByteArray) -> void:
	var peer = ws.get_peer(1)
	peer.set_write_mode(WebSocketPeer.WRITE_MODE_BINARY)
	peer.put_packet(bytes)
	peer.set_write_mode(WebSocketPeer.WRITE_MODE_TEXT)


func _send_mesh_blobs(mesh_blobs: Dictionary) -> void:
	for key in mesh_blobs:
		_send_binary(Blobs.encode(key, "mesh", Records.mesh_parts(mesh_blobs[key])))


func stamp() -> Dictionary:
	var r = records.root()
	if r and r.has_meta("kiln_stamp") and typeof(r.get_meta("kiln_stamp")) == TYPE_DICTIONARY:
		return r.get_meta("kiln_stamp")
	return {}


func write_stamp(fields: Dictionary) -> void:
	var r = records.root()
	if r == null:
		return
	var s = stamp().duplicate()
	for k in fields:
		s[k] = fields[k]
	r.set_meta("kiln_stamp", s)


func _send_hello() -> void:
	# Edits made while disconnected are offline edits: the hello must say dirty.
	var found = _compare()
	if found[0].size() or found[1].size():
		write_stamp({"dirty": true})
	var mesh_blobs = {}
	var recs = records.dump(mesh_blobs)
	# Every non-primitive mesh travels as a blob in the hello (Kiln may not have it), under its
	# mesh id when Kiln gave it one.
	# (Records from dump() are shared with its cache: changed copies, never the dictionaries.)
	for i in range(recs.size()):
		var r = recs[i]
		if r.get("type") == "object" and typeof(r.get("mesh")) == TYPE_STRING and r["mesh"].begins_with("mesh/"):
			var n = records.node_of(r["name"]) if r["scene"] == records.scene_name() else null
			if n and n is MeshInstance and n.mesh:
				mesh_blobs[r["mesh"]] = n.mesh
				recs[i] = r.duplicate()
				recs[i]["mesh"] = "blob:" + r["mesh"]
	var s = stamp()
	var hello_stamp = null
	if typeof(s.get("project")) == TYPE_STRING and s.get("seq") != null:
		hello_stamp = {"project": s["project"], "seq": int(s["seq"])}
	var r = records.root()
	var file = ProjectSettings.globalize_path(r.filename) if r.filename != "" else ""
	var v = Engine.get_version_info()
	_send_text({"type": "hello", "protocol": PROTOCOL, "app": "godot", "app_version": "%d.%d.%d" % [v.major, v.minor, v.patch],
		"instance": instance, "file": file, "stamp": hello_stamp, "dirty": bool(s.get("dirty", false))})
	# Protocol 2: a small hello, then the scene in `records` frames (any size of scene fits), the
	# mesh blobs first, then `sync` (docs/bridges.md, "Handshake").
	_send_mesh_blobs(mesh_blobs)
	var at = 0
	while at < recs.size():
		_send_text({"type": "records", "records": recs.slice(at, min(at + RECORDS_PER_FRAME, recs.size()) - 1)})
		at += RECORDS_PER_FRAME
		ws.poll()  # flush each frame: a big scene is more than the output buffer holds at once
	_send_text({"type": "sync"})
	hello_records = recs
	hello_blobs = mesh_blobs
	state = "hello"


# -- receiving -------------------------------------------------------------------------------

func _blob(data: PoolByteArray) -> void:
	var b = Blobs.decode(data)
	if typeof(b) == TYPE_STRING:
		say("ignored a bad binary frame: " + b)
		return
	inbox_blobs[b["key"]] = b


func _text(text: String) -> void:
	var parsed = JSON.parse(text)
	if parsed.error != OK or typeof(parsed.result) != TYPE_DICTIONARY:
		say("ignored a frame that is not a JSON object")
		return
	var msg = parsed.result
	var t = msg.get("type")
	if t == "welcome":
		_welcome(msg)
	elif t == "refused":
		last_error = "Kiln refused the connection: %s %s" % [msg.get("code"), msg.get("message")]
		say(last_error)
		_drop(last_error)
		if msg.get("code") == "APP_ALREADY_CONNECTED":
			next_attempt = OS.get_ticks_msec() + ALREADY_CONNECTED_WAIT
	elif t == "reply":
		_reply(msg)
	elif typeof(msg.get("id")) == TYPE_STRING:
		_request(msg)
	inbox_blobs.clear()  # a blob is for the next text frame only


func _welcome(msg: Dictionary) -> void:
	if int(msg.get("protocol", 0)) != PROTOCOL:
		_drop("Kiln speaks protocol %s, this plugin %d" % [msg.get("protocol"), PROTOCOL])
		return
	state = "live"
	backoff = BACKOFF_MIN
	last_error = ""
	since = OS.get_unix_time()
	project = str(msg.get("project", ""))
	session_id = str(msg.get("session", ""))
	var ids = msg.get("meshes") if typeof(msg.get("meshes")) == TYPE_DICTIONARY else {}
	_tag_meshes(hello_blobs, ids)
	agreed = {}
	baseline_root = records.root()
	for r in hello_records:
		var m = r.get("mesh")
		if typeof(m) == TYPE_STRING and m.begins_with("blob:"):
			var key = m.substr(5, m.length() - 5)
			r = r.duplicate()
			r["mesh"] = ids.get(key, key if key.begins_with("mesh/") else m)
		agreed[Records.id_of(r)] = r
	if msg.get("seq") != null:
		last_seq = int(msg["seq"])
	var s = stamp()
	write_stamp({"project": project, "seq": last_seq if msg.get("seq") != null else (int(s.get("seq", 0)) if s.get("project") == project else 0), "dirty": false})
	say("connected to Kiln (project %s)" % project)


func _tag_meshes(sent: Dictionary, ids: Dictionary) -> void:
	for key in ids:
		var mesh = sent.get(key)
		var id = ids[key]
		if mesh and typeof(id) == TYPE_STRING and id.begins_with("mesh/"):
			mesh.set_meta("kiln_mesh", id)
			records.mesh_cache[id] = mesh
			for rid in agreed:
				if agreed[rid].get("mesh") == "blob:" + key:
					agreed[rid] = agreed[rid].duplicate()
					agreed[rid]["mesh"] = id


var inflight = {}


func _reply(msg: Dictionary) -> void:
	var sent = inflight.get(msg.get("id"))
	if sent == null:
		return
	inflight.erase(msg.get("id"))
	if msg.get("ok"):
		var result = msg.get("result") if typeof(msg.get("result")) == TYPE_DICTIONARY else {}
		_tag_meshes(sent, result.get("meshes", {}) if typeof(result.get("meshes")) == TYPE_DICTIONARY else {})
		if result.get("seq") != null:
			last_seq = int(result["seq"])
			write_stamp({"seq": last_seq})
	else:
		var err = msg.get("error") if typeof(msg.get("error")) == TYPE_DICTIONARY else {}
		last_error = "Kiln refused an edit: %s %s" % [err.get("code"), err.get("message")]
		say(last_error)


func _request(msg: Dictionary) -> void:
	var rid = msg["id"]
	var t = msg.get("type")
	var result
	var deadline = msg.get("deadline")
	if t != "ping" and (typeof(deadline) == TYPE_REAL or typeof(deadline) == TYPE_INT) and OS.get_system_time_msecs() > deadline:
		# Kiln has given up on this request: doing it now would leave Godot with a change Kiln does not have.
		_send_text({"type": "reply", "id": rid, "ok": false, "error": {"code": "EXPIRED", "message": "Godot was busy until after the request's deadline; it was not carried out"}})
		return
	match t:
		"ping": result = {}
		"apply": result = _apply(msg)
		"save": result = _save(msg)
		"render":
			result = _render(msg)
			if result == null:
				return  # rendering takes frames: the plugin answers with render_done
		"dump": result = _dump(msg)
		"import":
			result = _import(msg)
			if result == null:
				return  # Godot imports in the background: answered from poll() when done
		_: result = ["UNKNOWN_REQUEST", "Godot's Kiln plugin does not know requests of type %s" % str(t)]
	if ws == null:
		return
	if typeof(result) == TYPE_ARRAY:
		last_error = result[1]
		_send_text({"type": "reply", "id": rid, "ok": false, "error": {"code": result[0], "message": result[1]}})
	else:
		_send_text({"type": "reply", "id": rid, "ok": true, "result": result})


# -- Kiln's requests -------------------------------------------------------------------------

func _apply(msg: Dictionary):
	var changes = msg.get("changes")
	if typeof(changes) != TYPE_ARRAY or typeof(msg.get("seq")) != TYPE_REAL:
		return ["APP_REFUSED", "apply needs changes (an array) and seq (an integer)"]
	var why = records.check(changes)
	if why != "":
		return ["APP_REFUSED", why]
	var meshes = {}
	for key in inbox_blobs:
		if inbox_blobs[key]["kind"] == "mesh":
			meshes[key] = records.mesh_from_blob(key, inbox_blobs[key])
	for c in changes:
		var a = c.get("after")
		if a != null and a.get("type") == "object" and a.get("kind") == "mesh" and a.get("primitive") == null:
			if not meshes.has(a.get("mesh")) and not records.mesh_cache.has(a.get("mesh")):
				return ["APP_REFUSED", "mesh %s was neither sent nor sent before on this connection" % str(a.get("mesh"))]
	# A hand edit signalled just before must not be mistaken for Kiln's change (the periodic
	# comparison finds the rest).
	if compare_due:
		_observe(OS.get_ticks_msec())
	var label = str(msg.get("label", "Kiln"))
	var backward = []
	for i in range(changes.size() - 1, -1, -1):
		var c = changes[i]
		backward.append({"id": c["id"], "before": c.get("after"), "after": c.get("before")})
	# One undo step per Kiln operation; undoing it is a hand edit Kiln hears about.
	var ur = plugin.get_undo_redo()
	var t0 = OS.get_ticks_usec()
	applying = true
	ur.create_action("Kiln: " + label)
	ur.add_do_method(self, "apply_changes", changes, meshes)
	ur.add_undo_method(self, "apply_changes", backward, meshes)
	ur.commit_action()
	applying = false
	apply_usec += OS.get_ticks_usec() - t0
	for c in changes:
		if c.get("after") == null:
			agreed.erase(c["id"])
		elif c["after"].get("type") != "mesh":
			agreed[c["id"]] = c["after"]
	last_seq = int(msg["seq"])
	write_stamp({"project": project, "seq": last_seq, "dirty": false})
	return {}


func apply_changes(changes: Array, meshes: Dictionary) -> void:
	var was = applying
	applying = true
	records.apply(changes, meshes)
	applying = was
	if not was:
		compare_due = true  # an undo or redo by hand: Kiln hears of it as an edit


func _save(msg: Dictionary):
	var r = records.root()
	if r == null:
		return ["APP_REFUSED", "no scene is open in the Godot editor"]
	var path = msg.get("path")
	write_stamp({"project": project, "seq": last_seq, "dirty": false})
	if path == null:
		if r.filename == "":
			return ["APP_REFUSED", "the scene has never been saved: give a path"]
		var err = plugin.get_editor_interface().save_scene()
		if err != OK:
			return ["APP_REFUSED", "Godot could not save %s (error %d)" % [r.filename, err]]
		return {"file": ProjectSettings.globalize_path(r.filename)}
	if typeof(path) != TYPE_STRING or not path.is_abs_path() or not path.ends_with(".tscn"):
		return ["APP_REFUSED", "path must be an absolute path ending in .tscn"]
	if not Directory.new().dir_exists(path.get_base_dir()):
		return ["APP_REFUSED", "the folder of %s does not exist" % path]
	var packed = PackedScene.new()
	var err = packed.pack(r)
	if err == OK:
		err = ResourceSaver.save(path, packed)
	if err != OK:
		return ["APP_REFUSED", "Godot could not save %s (error %d)" % [path, err]]
	return {"file": path}


func _render(msg: Dictionary):
	var w = msg.get("width")
	var h = msg.get("height")
	if typeof(w) != TYPE_REAL or typeof(h) != TYPE_REAL or w < 1 or h < 1 or w > 8192 or h > 8192 or int(w) != w or int(h) != h:
		return ["APP_REFUSED", "width and height must be integers 1-8192"]
	if OS.get_name() == "Server":
		return ["APP_REFUSED", "this Godot is a server build (dummy renderer) and cannot render; run the editor under a display (godot3, or godot3 under xvfb-run)"]
	if records.root() == null:
		return ["APP_REFUSED", "no scene is open in the Godot editor"]
	plugin.render(msg["id"], int(w), int(h))
	return null


# The answer to a render, once its frames are drawn: a png blob, then the reply.
func render_done(rid: String, png, error: String) -> void:
	if ws == null or state != "live":
		return
	if png == null:
		_send_text({"type": "reply", "id": rid, "ok": false, "error": {"code": "APP_REFUSED", "message": error}})
		return
	var key = send_png(png)
	var img = Image.new()
	img.load_png_from_buffer(png)
	_send_text({"type": "reply", "id": rid, "ok": true, "result": {"blob": key, "width": img.get_width(), "height": img.get_height(), "engine": "GLES3" if OS.get_current_video_driver() == OS.VIDEO_DRIVER_GLES3 else "GLES2"}})


const IMPORT_FORMATS = ["glb", "gltf", "obj", "fbx"]
const IMPORT_TIMEOUT_MS = 120000
var importing = []  # [request id, res:// path, deadline]


# A transferred file for Godot's own importer: copied (with its side files) into
# res://kiln_imports/<folder>/, then the editor's filesystem scan imports it.
func _import(msg: Dictionary):
	var path = msg.get("path")
	var folder = msg.get("folder")
	var side = msg.get("side_files", [])
	if typeof(path) != TYPE_STRING or not path.is_abs_path() or not File.new().file_exists(path):
		return ["APP_REFUSED", "path must be an existing file's absolute path"]
	if not path.get_extension().to_lower() in IMPORT_FORMATS:
		return ["APP_REFUSED", "Godot imports %s files here, not .%s" % [IMPORT_FORMATS, path.get_extension()]]
	if typeof(folder) != TYPE_STRING or folder == "" or folder.length() > 64 or not folder.is_valid_filename() or folder.begins_with("."):
		return ["APP_REFUSED", "folder must be a plain folder name"]
	if typeof(side) != TYPE_ARRAY:
		return ["APP_REFUSED", "side_files must be an array of paths"]
	var target = "res://kiln_imports/%s" % folder
	var d = Directory.new()
	if d.make_dir_recursive(target) != OK:
		return ["APP_REFUSED", "Godot could not create %s" % target]
	for f in [path] + side:
		if typeof(f) != TYPE_STRING or not f.is_abs_path() or f.get_base_dir() != path.get_base_dir():
			return ["APP_REFUSED", "side files must sit beside the main file"]
		if d.copy(f, target.plus_file(f.get_file())) != OK:
			return ["APP_REFUSED", "Godot could not copy %s into the project" % f]
	var res = target.plus_file(path.get_file())
	plugin.get_editor_interface().get_resource_filesystem().scan()
	importing.append([msg["id"], res, OS.get_ticks_msec() + IMPORT_TIMEOUT_MS])
	return null


func _poll_imports() -> void:
	var fs = plugin.get_editor_interface().get_resource_filesystem()
	for job in importing.duplicate():
		var imported = not fs.is_scanning() and ResourceLoader.exists(job[1])
		if imported or OS.get_ticks_msec() > job[2]:
			importing.erase(job)
			if ws == null or state != "live":
				continue
			if imported:
				_send_text({"type": "reply", "id": job[0], "ok": true, "result": {"resource": job[1]}})
			else:
				_send_text({"type": "reply", "id": job[0], "ok": false, "error": {"code": "APP_REFUSED", "message": "Godot's importer did not import %s" % job[1]}})


func _dump(_msg: Dictionary):
	var mesh_blobs = {}
	var recs = records.dump(mesh_blobs)
	_send_mesh_blobs(mesh_blobs)
	return {"records": recs}


func send_png(png: PoolByteArray) -> String:
	next_id += 1
	var key = "png:%d" % next_id
	_send_binary(Blobs.encode(key, "png", {"data": png}))
	return key


# -- the artist's edits ----------------------------------------------------------------------

var baseline_root = null


# A scene opened while not connected is compared with itself as loaded: only what changes after
# that is an offline edit (dirty), not the whole scene.
func _take_baseline() -> void:
	baseline_root = records.root()
	records.index_stale = true
	if baseline_root == null:
		return
	agreed = {}
	for r in records.dump({}):
		agreed[Records.id_of(r)] = r


# What differs between the scene and the agreed records: [changed records, deleted ids].
func _compare() -> Array:
	var mesh_blobs = {}
	var recs = records.dump(mesh_blobs)
	var seen = {}
	var changed = []
	for r in recs:
		var id = Records.id_of(r)
		seen[id] = true
		if not agreed.has(id) or not Records.same(agreed[id], r):
			changed.append(r)
	var deleted = []
	for id in agreed:
		if not seen.has(id) and not id.begins_with("mesh/"):
			deleted.append(id)
	return [changed, deleted, mesh_blobs]


func _observe(now: int) -> void:
	if applying or state == "hello" or state == "connecting":
		return
	compare_due = false
	var t0 = OS.get_ticks_usec()
	var found = _compare()
	compare_cost = (OS.get_ticks_usec() - t0) / 1000
	# Signals (UndoRedo, the scene tree) bring the comparison forward; otherwise it runs every
	# second as a safety net, and at most a tenth of the time on big scenes.
	next_compare = now + max(1000, compare_cost * 10)
	var changed = found[0]
	var deleted = found[1]
	if changed.empty() and deleted.empty():
		return
	for r in changed:
		agreed[Records.id_of(r)] = r
	for id in deleted:
		agreed.erase(id)
	if state != "live":
		write_stamp({"dirty": true})  # Kiln hears of it in the next hello
		return
	changed.sort_custom(self, "_before")
	var used = {}
	for r in changed:
		var m = r.get("mesh")
		if typeof(m) == TYPE_STRING and m.begins_with("blob:"):
			used[m.substr(5, m.length() - 5)] = found[2][m.substr(5, m.length() - 5)]
	next_id += 1
	var rid = "g%d" % next_id
	_send_mesh_blobs(used)
	_send_text({"type": "edit", "id": rid, "records": changed, "deleted": deleted})
	inflight[rid] = used
	busy_until = OS.get_ticks_msec() + 500


func _before(a, b) -> bool:
	var order = {"app": 0, "scene": 1, "material": 2, "object": 3}
	if order[a["type"]] != order[b["type"]]:
		return order[a["type"]] < order[b["type"]]
	if a["type"] == "object":
		return _depth(a) < _depth(b)
	return false


func _depth(r: Dictionary) -> int:
	var d = 0
	var p = r.get("parent")
	while p != null and d < 64:
		d += 1
		var n = records.node_of(p)
		if n == null:
			break
		var parent = n.get_parent()
		p = null if parent == records.root() else Records.kiln_name(parent)
	return d
