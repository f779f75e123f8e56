# Kiln records <-> Godot nodes (docs/bridges.md, "Godot"). The edited scene's root is the active
# Kiln scene; its Spatial descendants (owned by the root) are the objects; the scene camera is a
# Camera child tagged kiln_camera. Kiln scenes that are not open are kept as records on the root
# (meta kiln_parked) and built when they become active. Only data is read here: no code.
extends Reference

const Blobs = preload("res://addons/kiln/blobs.gd")

const DEFAULT_CAMERA = {"position": {"x": 0.0, "y": 1.0, "z": 10.0}, "rotation": {"x": 0.0, "y": 0.0, "z": 0.0}, "fov": 70.0}
const PRIMITIVES = {"Cube": "CubeMesh", "Plane": "PlaneMesh", "Sphere": "SphereMesh", "Cylinder": "CylinderMesh"}
const LIGHTS = {"Directional": "DirectionalLight", "Point": "OmniLight", "Spot": "SpotLight"}
const CAMERA_NODE = "SceneCamera"

var plugin  # the EditorPlugin: the edited scene root
var index = {}  # Kiln object name -> node, of the active scene (checked on use)


func _init(p):
	plugin = p


func root() -> Node:
	var r = plugin.get_editor_interface().get_edited_scene_root()
	return r if r is Spatial else null


# -- ids and names -------------------------------------------------------------------------

static func enc(s: String) -> String:
	return s.percent_encode()


static func id_of(r: Dictionary) -> String:
	match r.get("type"):
		"app": return "app/godot"
		"scene": return "scene/godot/" + enc(r["name"])
		"object": return "object/godot/%s/%s" % [enc(r["scene"]), enc(r["name"])]
		"material": return "material/godot/" + enc(r["name"])
	return ""


# A node's Kiln name: the name Kiln gave it, unless the node was renamed by hand since.
static func kiln_name(n: Node) -> String:
	if n.has_meta("kiln_name") and n.has_meta("kiln_gname") and str(n.get_meta("kiln_gname")) == str(n.name):
		return n.get_meta("kiln_name")
	return str(n.name)


static func set_kiln_name(n: Node, name: String) -> void:
	n.name = name
	if str(n.name) != name:  # a character Godot does not allow, or a sibling with that name
		n.set_meta("kiln_name", name)
		n.set_meta("kiln_gname", str(n.name))
	elif n.has_meta("kiln_name"):
		n.remove_meta("kiln_name")
		n.remove_meta("kiln_gname")


# -- reading the scene ---------------------------------------------------------------------

static func vec(v: Vector3) -> Dictionary:
	return {"x": v.x, "y": v.y, "z": v.z}


static func to_vec(d) -> Vector3:
	return Vector3(d["x"], d["y"], d["z"])


static func col(c: Color) -> Dictionary:
	return {"r": clamp(c.r, 0, 1), "g": clamp(c.g, 0, 1), "b": clamp(c.b, 0, 1), "a": clamp(c.a, 0, 1)}


static func to_col(d) -> Color:
	return Color(d["r"], d["g"], d["b"], d["a"])


func scene_name() -> String:
	var r = root()
	return kiln_name(r) if r else ""


func camera_node(r: Node):
	for c in r.get_children():
		if c is Camera and c.has_meta("kiln_camera"):
			return c
	return null


func parked() -> Dictionary:
	var r = root()
	return r.get_meta("kiln_parked") if r and r.has_meta("kiln_parked") else {}


func materials() -> Dictionary:
	var r = root()
	return r.get_meta("kiln_materials") if r and r.has_meta("kiln_materials") else {}


# Every object node of the active scene, parents before children.
func object_nodes() -> Array:
	var out = []
	var r = root()
	if r:
		_collect(r, r, out)
	return out


func _collect(n: Node, r: Node, out: Array) -> void:
	for c in n.get_children():
		if not (c is Spatial) or c.owner != r:
			continue
		if c.get_parent() == r and c is Camera and c.has_meta("kiln_camera"):
			continue
		out.append(c)
		_collect(c, r, out)


func rebuild_index() -> void:
	index = {}
	for n in object_nodes():
		index[kiln_name(n)] = n


var index_stale = true  # set when the tree changed other than through apply()


func node_of(name: String):
	var n = index.get(name)
	if n != null and is_instance_valid(n) and n.is_inside_tree() and kiln_name(n) == name:
		return n
	if index_stale or n != null:
		rebuild_index()
		index_stale = false
	return index.get(name)


# The whole scene of app godot as records; meshes that Kiln has not given an id are `blob:` keys
# listed in `blobs_out` (key -> Mesh).
func dump(blobs_out: Dictionary) -> Array:
	var r = root()
	if r == null:
		return []
	var scene = kiln_name(r)
	var out = [{"type": "app", "app": "godot", "activeScene": scene}, scene_record(r)]
	var mats = {}
	var seen = {}
	for n in object_nodes():
		# A node whose signature has not changed since the last dump has the same record: reading
		# only what changed keeps the periodic comparison cheap on big scenes.
		var iid = n.get_instance_id()
		var sig = signature(n, scene)
		var cached = record_cache.get(iid)
		var rec
		if cached != null and cached[0] == sig:
			rec = cached[1]
			if rec.get("material") != null:
				mats[rec["material"]] = n.material_override
			var m = rec.get("mesh")
			if typeof(m) == TYPE_STRING and m.begins_with("blob:"):
				blobs_out[m.substr(5, m.length() - 5)] = n.mesh
		else:
			rec = object_record(n, scene, blobs_out, mats)
			record_cache[iid] = [sig, rec]
		seen[iid] = true
		out.append(rec)
	if record_cache.size() > seen.size() * 2 + 64:
		for iid in record_cache.keys():
			if not seen.has(iid):
				record_cache.erase(iid)
	var registry = materials()
	for name in registry:
		mats[name] = registry[name]
	for name in mats:
		out.append(material_record(name, mats[name]))
	var p = parked()
	for id in p:
		out.append(p[id])
	return out


var record_cache = {}  # node instance id -> [signature, record]


# Everything an object record is read from, as values Godot compares natively.
func signature(n: Spatial, scene: String) -> Array:
	var parent = n.get_parent()
	var sig = [scene, n.name, n.get_meta("kiln_name") if n.has_meta("kiln_name") else null, n.get_class(),
		parent.get_instance_id(), parent.name, n.transform, n.get_meta("kiln_keyframes") if n.has_meta("kiln_keyframes") else null,
		n.get_meta("kiln_modifiers") if n.has_meta("kiln_modifiers") else null]
	if parent.has_meta("kiln_name"):
		sig.append(parent.get_meta("kiln_name"))
	if n is MeshInstance:
		var m = n.mesh
		sig.append(m.get_instance_id() if m else 0)
		if m:
			sig.append(m.get_meta("kiln_mesh") if m.has_meta("kiln_mesh") else null)
			if m is PrimitiveMesh:
				sig.append(m.get("size"))
				sig.append(m.get("radius"))
				sig.append(m.get("height"))
				sig.append(m.get("top_radius"))
				sig.append(m.get("bottom_radius"))
		var mat = n.material_override
		sig.append(mat.get_instance_id() if mat else 0)
		sig.append(mat.resource_name if mat else null)
	elif n is Light:
		# Array.append_array is Godot 3.3+; 3.2 (Debian's) has only append.
		for v in [n.light_energy, n.light_color, n.get("omni_range"), n.get("spot_range"), n.get("spot_angle"),
			n.get_meta("kiln_range") if n.has_meta("kiln_range") else null, n.get_meta("kiln_spot_angle") if n.has_meta("kiln_spot_angle") else null]:
			sig.append(v)
	return sig


func scene_record(r: Node) -> Dictionary:
	var camera = DEFAULT_CAMERA.duplicate(true)
	var c = camera_node(r)
	if c:
		camera = {"position": vec(c.translation), "rotation": vec(c.rotation_degrees), "fov": c.fov}
	return {"type": "scene", "app": "godot", "name": kiln_name(r), "camera": camera}


func material_record(name: String, m) -> Dictionary:
	var c = m.albedo_color if m is SpatialMaterial else Color(0.8, 0.8, 0.8, 1)
	var metallic = m.metallic if m is SpatialMaterial else 0.0
	var roughness = m.roughness if m is SpatialMaterial else 1.0
	return {"type": "material", "app": "godot", "name": name, "color": col(c),
		"metallic": clamp(metallic, 0, 1), "roughness": clamp(roughness, 0, 1)}


func object_record(n: Spatial, scene: String, blobs_out: Dictionary, mats: Dictionary) -> Dictionary:
	var parent = n.get_parent()
	var rec = {
		"type": "object", "app": "godot", "scene": scene, "name": kiln_name(n),
		"kind": "empty", "primitive": null, "mesh": null, "material": null, "light": null,
		"parent": null if parent == root() else kiln_name(parent),
		"position": vec(n.translation), "rotation": vec(n.rotation_degrees), "scale": vec(n.scale),
		"keyframes": n.get_meta("kiln_keyframes") if n.has_meta("kiln_keyframes") else [],
		"modifiers": n.get_meta("kiln_modifiers") if n.has_meta("kiln_modifiers") else [],
	}
	if n is MeshInstance and n.mesh != null:
		rec["kind"] = "mesh"
		var prim = primitive_of(n.mesh)
		if prim != "":
			rec["primitive"] = prim
		elif n.mesh.has_meta("kiln_mesh"):
			rec["mesh"] = n.mesh.get_meta("kiln_mesh")
		else:
			var key = "gmesh:%d" % n.mesh.get_instance_id()
			blobs_out[key] = n.mesh
			rec["mesh"] = "blob:" + key
		var m = n.material_override
		if m is SpatialMaterial and m.resource_name != "":
			rec["material"] = m.resource_name
			mats[m.resource_name] = m
	elif n is Light:
		rec["kind"] = "light"
		rec["light"] = light_of(n)
	return rec


# A primitive as Kiln knows it: Godot's own mesh with its default size (Kiln's sizes for Godot).
static func primitive_of(mesh) -> String:
	if mesh is CubeMesh and mesh.size.is_equal_approx(Vector3(2, 2, 2)):
		return "Cube"
	if mesh is PlaneMesh and mesh.size.is_equal_approx(Vector2(2, 2)):
		return "Plane"
	if mesh is SphereMesh and is_equal_approx(mesh.radius, 1.0) and is_equal_approx(mesh.height, 2.0):
		return "Sphere"
	if mesh is CylinderMesh and is_equal_approx(mesh.top_radius, 1.0) and is_equal_approx(mesh.bottom_radius, 1.0) and is_equal_approx(mesh.height, 2.0):
		return "Cylinder"
	return ""


static func light_of(n: Light) -> Dictionary:
	var type = "Directional"
	var light_range = n.get_meta("kiln_range") if n.has_meta("kiln_range") else 10.0
	var spot = n.get_meta("kiln_spot_angle") if n.has_meta("kiln_spot_angle") else 30.0
	if n is OmniLight:
		type = "Point"
		light_range = n.omni_range
	elif n is SpotLight:
		type = "Spot"
		light_range = n.spot_range
		spot = n.spot_angle * 2.0  # Godot's angle is the cone's half angle; Kiln's the whole cone
	return {"type": type, "intensity": max(n.light_energy, 0.0), "color": col(n.light_color),
		"range": max(light_range, 0.0001), "spotAngle": clamp(spot, 0.001, 179.9)}


# -- writing the scene ---------------------------------------------------------------------

# Why a change set cannot be applied, or "" (checked before anything is touched: all or nothing).
func check(changes: Array) -> String:
	var r = root()
	if r == null:
		return "no scene is open in the Godot editor"
	for c in changes:
		if typeof(c) != TYPE_DICTIONARY or typeof(c.get("id")) != TYPE_STRING:
			return "a change is not {id, before, after}"
		var a = c.get("after")
		if a == null:
			continue
		if typeof(a) != TYPE_DICTIONARY or not a.get("type") in ["app", "scene", "object", "material", "mesh"]:
			return "change %s: after is not a record" % c["id"]
		if a.get("app", "godot") != "godot":
			return "change %s is not a record of godot" % c["id"]
		if a["type"] == "object":
			for k in ["scene", "name", "kind", "position", "rotation", "scale"]:
				if not a.has(k):
					return "change %s: object has no %s" % [c["id"], k]
			if a["kind"] == "mesh" and a.get("primitive") != null and not PRIMITIVES.has(a["primitive"]):
				return "change %s: unknown primitive %s" % [c["id"], a["primitive"]]
			if a["kind"] == "light" and (typeof(a.get("light")) != TYPE_DICTIONARY or not LIGHTS.has(a["light"].get("type"))):
				return "change %s: a light needs light properties" % c["id"]
			for k in ["position", "rotation", "scale"]:
				var v = a[k]
				if typeof(v) != TYPE_DICTIONARY or typeof(v.get("x")) != TYPE_REAL or typeof(v.get("y")) != TYPE_REAL or typeof(v.get("z")) != TYPE_REAL:
					return "change %s: %s is not {x, y, z}" % [c["id"], k]
		elif a["type"] == "material" and typeof(a.get("color")) != TYPE_DICTIONARY:
			return "change %s: a material needs a colour" % c["id"]
		elif a["type"] == "scene" and typeof(a.get("camera")) != TYPE_DICTIONARY:
			return "change %s: a scene needs a camera" % c["id"]
		elif a["type"] == "app" and typeof(a.get("activeScene")) != TYPE_STRING:
			return "change %s: activeScene is not a name" % c["id"]
	var deleting_active = false
	for c in changes:
		if c["id"] == id_of({"type": "scene", "name": scene_name()}) and c.get("after") == null:
			deleting_active = true
		if c["id"] == "app/godot" and c.get("after") != null:
			deleting_active = false
	if deleting_active:
		return "the open scene cannot be deleted while it is the active one"
	return ""


# Makes the scene match `after` for each change (null: delete). `meshes` maps mesh ids to ArrayMesh.
func apply(changes: Array, meshes: Dictionary) -> void:
	var r = root()
	var p = parked().duplicate()
	var mats = materials().duplicate()
	# The active scene first: a switch parks the open scene and builds the new one.
	for c in changes:
		if c["id"] == "app/godot" and c.get("after") != null and c["after"]["activeScene"] != kiln_name(r):
			_switch(r, p, c["after"]["activeScene"], changes)
	var scene = kiln_name(r)
	var objects = []
	for c in changes:
		var a = c.get("after")
		var b = c.get("before")
		var rec = a if a != null else b
		if rec == null or typeof(rec) != TYPE_DICTIONARY:
			# A deletion Kiln knows only by id: remove whatever we have under it.
			_delete_by_id(r, p, mats, c["id"])
			continue
		match rec.get("type"):
			"material":
				if a == null:
					mats.erase(b["name"])
				else:
					var m = mats.get(a["name"])
					if m == null:
						m = SpatialMaterial.new()
						m.resource_name = a["name"]
						mats[a["name"]] = m
					_set_material(m, a)
			"scene":
				if rec["name"] == scene:
					if a != null:
						_set_camera(r, a["camera"])
				elif a == null:
					p.erase(c["id"])
				else:
					p[c["id"]] = a
			"object":
				if rec["scene"] != scene:
					if a == null:
						p.erase(c["id"])
					else:
						p[c["id"]] = a
				else:
					objects.append(c)
	r.set_meta("kiln_materials", mats)
	r.set_meta("kiln_parked", p)
	# Objects: deletions (children kept, moved to the root), then creations and updates, then parents.
	for c in objects:
		if c.get("after") == null:
			var n = node_of(c["before"]["name"])
			if n:
				for child in n.get_children():
					if child is Spatial and child.owner == r:
						_reparent(child, r, r)
				n.get_parent().remove_child(n)
				index.erase(c["before"]["name"])
				n.queue_free()
	var placed = []
	for c in objects:
		var a = c.get("after")
		if a == null:
			continue
		var name = c["before"]["name"] if c.get("before") != null else a["name"]
		var n = node_of(name)
		n = _object(r, n, a, mats, meshes)
		placed.append([n, a])
	for pair in placed:
		var want = pair[1].get("parent")
		var parent = r if want == null else node_of(want)
		if parent == null:
			parent = r
		if pair[0].get_parent() != parent:
			_reparent(pair[0], parent, r)
	# Keyframes play from an AnimationPlayer, once every node is where it belongs (tracks are paths).
	for c in objects:
		if c.get("after") == null:
			_animate(r, null, [], c["before"]["name"])
	for pair in placed:
		if pair[1].get("keyframes", []).size() or (c_had_keys(objects, pair[1]["name"])):
			_animate(r, pair[0], pair[1].get("keyframes", []), pair[1]["name"])


const ANIMATION_NODE = "KilnAnimation"


static func c_had_keys(objects: Array, name: String) -> bool:
	for c in objects:
		var b = c.get("before")
		if b != null and b["name"] == name and b.get("keyframes", []).size():
			return true
		if b != null and c.get("after") != null and c["after"]["name"] == name and b.get("keyframes", []).size():
			return true
	return false


static func animation_name(name: String) -> String:
	for ch in ["/", ":", ",", "[", "]"]:
		name = name.replace(ch, "_")
	return name


# One Animation per object with keyframes, in the root's AnimationPlayer KilnAnimation: a value
# track per animated channel (translation, rotation_degrees, scale), linear as Kiln's keys are.
func _animate(r: Node, n, keys: Array, name: String) -> void:
	var player = r.get_node_or_null(ANIMATION_NODE)
	var anim_name = animation_name(name)
	if player and player.has_animation(anim_name):
		player.remove_animation(anim_name)
	if keys.empty() or n == null:
		return
	if player == null:
		player = AnimationPlayer.new()
		player.name = ANIMATION_NODE
		r.add_child(player)
		player.owner = r
	var anim = Animation.new()
	var path = str(r.get_path_to(n))
	var length = 0.0
	for channel in [["position", "translation"], ["rotation", "rotation_degrees"], ["scale", "scale"]]:
		var track = -1
		for k in keys:
			if typeof(k) != TYPE_DICTIONARY or k.get(channel[0]) == null:
				continue
			if track < 0:
				track = anim.add_track(Animation.TYPE_VALUE)
				anim.track_set_path(track, path + ":" + channel[1])
				anim.track_set_interpolation_type(track, Animation.INTERPOLATION_LINEAR)
				anim.value_track_set_update_mode(track, Animation.UPDATE_CONTINUOUS)
			anim.track_insert_key(track, float(k["time"]), to_vec(k[channel[0]]))
			length = max(length, float(k["time"]))
	anim.length = max(length, 0.001)
	player.add_animation(anim_name, anim)


func _switch(r: Node, p: Dictionary, to: String, changes: Array) -> void:
	var blobs_out = {}
	var scene = kiln_name(r)
	var mats = {}
	for n in object_nodes():
		var rec = object_record(n, scene, blobs_out, mats)
		p[id_of(rec)] = rec
	p[id_of({"type": "scene", "name": scene})] = scene_record(r)
	for n in object_nodes():
		if n.get_parent() == r:
			r.remove_child(n)
			n.queue_free()
	index = {}
	var player = r.get_node_or_null(ANIMATION_NODE)
	if player:
		r.remove_child(player)
		player.queue_free()
	set_kiln_name(r, to)
	# The new scene's parked objects and camera become nodes (changes for them follow).
	var sid = id_of({"type": "scene", "name": to})
	var built = []
	for id in p.keys():
		var rec = p[id]
		if rec.get("type") == "object" and rec["scene"] == to:
			built.append({"id": id, "before": null, "after": rec})
			p.erase(id)
	if p.has(sid):
		_set_camera(r, p[sid]["camera"])
		p.erase(sid)
	else:
		_set_camera(r, DEFAULT_CAMERA)
	r.set_meta("kiln_parked", p)
	if built.size():
		var keep_parked = p
		apply(built, {})
		p = keep_parked


func _delete_by_id(r: Node, p: Dictionary, mats: Dictionary, id: String) -> void:
	p.erase(id)


func _set_camera(r: Node, cam: Dictionary) -> void:
	var c = camera_node(r)
	if c == null:
		c = Camera.new()
		c.name = CAMERA_NODE
		c.set_meta("kiln_camera", true)
		r.add_child(c)
		c.owner = r
	c.translation = to_vec(cam["position"])
	c.rotation_degrees = to_vec(cam["rotation"])
	c.fov = cam["fov"]
	c.keep_aspect = Camera.KEEP_HEIGHT
	c.current = true


func _set_material(m: SpatialMaterial, a: Dictionary) -> void:
	m.albedo_color = to_col(a["color"])
	m.metallic = a.get("metallic", 0.0)
	m.roughness = a.get("roughness", 1.0)
	m.flags_transparent = a["color"]["a"] < 1.0


# Creates or updates the node of an object record; returns it.
func _object(r: Node, n, a: Dictionary, mats: Dictionary, meshes: Dictionary) -> Spatial:
	var want = "Spatial"
	if a["kind"] == "mesh":
		want = "MeshInstance"
	elif a["kind"] == "light":
		want = LIGHTS[a["light"]["type"]]
	if n != null and n.get_class() != want:
		# Another kind of node: replaced, its children moved over.
		var old = n
		n = ClassDB.instance(want)
		old.get_parent().add_child_below_node(old, n)
		n.owner = r
		for child in old.get_children():
			if child is Spatial and child.owner == r:
				_reparent(child, n, r)
		index.erase(kiln_name(old))
		old.get_parent().remove_child(old)
		old.queue_free()
		set_kiln_name(n, a["name"])
	elif n == null:
		n = ClassDB.instance(want)
		r.add_child(n)
		n.owner = r
		set_kiln_name(n, a["name"])
	elif kiln_name(n) != a["name"]:
		set_kiln_name(n, a["name"])
	index[a["name"]] = n
	n.translation = to_vec(a["position"])
	n.rotation_degrees = to_vec(a["rotation"])
	n.scale = to_vec(a["scale"])
	_meta(n, "kiln_keyframes", a.get("keyframes", []))
	_meta(n, "kiln_modifiers", a.get("modifiers", []))
	if a["kind"] == "mesh":
		if a.get("primitive") != null:
			if primitive_of(n.mesh) != a["primitive"]:
				n.mesh = ClassDB.instance(PRIMITIVES[a["primitive"]])
		elif n.mesh == null or not n.mesh.has_meta("kiln_mesh") or n.mesh.get_meta("kiln_mesh") != a["mesh"]:
			n.mesh = meshes.get(a["mesh"])
			if n.mesh == null:
				n.mesh = mesh_cache.get(a["mesh"])
		n.material_override = mats.get(a["material"]) if a.get("material") != null else null
	elif a["kind"] == "light":
		var l = a["light"]
		n.light_energy = l["intensity"]
		n.light_color = to_col(l["color"])
		_meta(n, "kiln_range", l["range"] if n is DirectionalLight else null)
		_meta(n, "kiln_spot_angle", l["spotAngle"] if not n is SpotLight else null)
		if n is OmniLight:
			n.omni_range = l["range"]
		elif n is SpotLight:
			n.spot_range = l["range"]
			n.spot_angle = l["spotAngle"] / 2.0
	return n


static func _meta(n: Object, key: String, value) -> void:
	if value == null or (typeof(value) == TYPE_ARRAY and value.empty()):
		if n.has_meta(key):
			n.remove_meta(key)
	else:
		n.set_meta(key, value)


static func _reparent(n: Node, to: Node, r: Node) -> void:
	var t = n.global_transform if n.is_inside_tree() else n.transform
	n.get_parent().remove_child(n)
	to.add_child(n)
	_own(n, r)


static func _own(n: Node, r: Node) -> void:
	n.owner = r
	for c in n.get_children():
		if c.owner == null:
			_own(c, r)


# -- meshes --------------------------------------------------------------------------------

var mesh_cache = {}  # mesh id -> ArrayMesh, of this connection


# An ArrayMesh from a mesh blob (Kiln's triangles are counter-clockwise; Godot's front faces clockwise).
func mesh_from_blob(id: String, blob: Dictionary) -> ArrayMesh:
	var pos = Blobs.bytes_to_floats(blob["parts"].get("positions", PoolByteArray()))
	var nor = Blobs.bytes_to_floats(blob["parts"].get("normals", PoolByteArray()))
	var idx = Blobs.bytes_to_u32s(blob["parts"].get("indices", PoolByteArray()))
	var verts = PoolVector3Array()
	var normals = PoolVector3Array()
	for i in range(pos.size() / 3):
		verts.append(Vector3(pos[i * 3], pos[i * 3 + 1], pos[i * 3 + 2]))
		if nor.size() == pos.size():
			normals.append(Vector3(nor[i * 3], nor[i * 3 + 1], nor[i * 3 + 2]))
	var indices = PoolIntArray()
	for t in range(idx.size() / 3):
		indices.append(idx[t * 3])
		indices.append(idx[t * 3 + 2])
		indices.append(idx[t * 3 + 1])
	var arrays = []
	arrays.resize(Mesh.ARRAY_MAX)
	arrays[Mesh.ARRAY_VERTEX] = verts
	if normals.size() == verts.size():
		arrays[Mesh.ARRAY_NORMAL] = normals
	arrays[Mesh.ARRAY_INDEX] = indices
	var mesh = ArrayMesh.new()
	if verts.size() > 0:
		mesh.add_surface_from_arrays(Mesh.PRIMITIVE_TRIANGLES, arrays)
	mesh.set_meta("kiln_mesh", id)
	mesh_cache[id] = mesh
	return mesh


# Triangles of a mesh as a blob's parts, one vertex per face corner so split normals survive.
static func mesh_parts(mesh: Mesh) -> Dictionary:
	var pos = []
	var nor = []
	var idx = []
	for s in range(mesh.get_surface_count()):
		if mesh.surface_get_primitive_type(s) != Mesh.PRIMITIVE_TRIANGLES:
			continue
		var arrays = mesh.surface_get_arrays(s)
		var verts = arrays[Mesh.ARRAY_VERTEX]
		var normals = arrays[Mesh.ARRAY_NORMAL]
		var indices = arrays[Mesh.ARRAY_INDEX]
		var corners = []
		if indices != null and indices.size() > 0:
			corners = Array(indices)
		else:
			corners = range(verts.size())
		for t in range(corners.size() / 3):
			for k in [0, 2, 1]:
				var i = corners[t * 3 + k]
				var v = verts[i]
				pos.append_array([v.x, v.y, v.z])
				if normals != null and normals.size() == verts.size():
					var nv = normals[i]
					nor.append_array([nv.x, nv.y, nv.z])
				else:
					nor.append_array([0.0, 0.0, 0.0])
				idx.append(idx.size())
	return {"positions": Blobs.floats_to_bytes(pos), "normals": Blobs.floats_to_bytes(nor), "indices": Blobs.u32s_to_bytes(idx)}


# -- comparing -------------------------------------------------------------------------------

# Equal records, numbers to 1e-5 (relative above 1: Godot keeps float32).
static func same(a, b) -> bool:
	var ta = typeof(a)
	var tb = typeof(b)
	if (ta == TYPE_REAL or ta == TYPE_INT) and (tb == TYPE_REAL or tb == TYPE_INT):
		return abs(float(a) - float(b)) <= 1e-5 * max(1.0, abs(float(a)))
	if ta != tb:
		return false
	if ta == TYPE_DICTIONARY:
		if a.size() != b.size():
			return false
		for k in a:
			if not b.has(k) or not same(a[k], b[k]):
				return false
		return true
	if ta == TYPE_ARRAY:
		if a.size() != b.size():
			return false
		for i in range(a.size()):
			if not same(a[i], b[i]):
				return false
		return true
	return a == b
