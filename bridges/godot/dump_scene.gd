# What a Godot scene holds, as plain data, for checks outside Kiln (tests/interop/live-godot.test.ts):
#   godot3-server --path ANY_PROJECT -s dump_scene.gd --scene /abs/scene.tscn --out /abs/out.json
# loads a saved scene in a fresh Godot and writes {"scene", "objects": [...]}; view(root) is also
# used by the test driver inside the live editor. World matrices are 4x4, row-major.
extends SceneTree


static func kiln_name(n: Node) -> String:
	if n.has_meta("kiln_name") and n.has_meta("kiln_gname") and str(n.get_meta("kiln_gname")) == str(n.name):
		return n.get_meta("kiln_name")
	return str(n.name)


static func matrix(t: Transform) -> Array:
	var b = t.basis
	return [b.x.x, b.y.x, b.z.x, t.origin.x, b.x.y, b.y.y, b.z.y, t.origin.y, b.x.z, b.y.z, b.z.z, t.origin.z, 0, 0, 0, 1]


# World transform from the root down, without needing the tree.
static func world(n: Spatial, root: Node) -> Transform:
	var t = n.transform
	var p = n.get_parent()
	while p != null and p != root and p is Spatial:
		t = p.transform * t
		p = p.get_parent()
	return t


static func view(root: Node) -> Dictionary:
	var objects = []
	# No camera node: the plugin's default camera (bridges/godot/addons/kiln/records.gd).
	var camera = {"matrix": matrix(Transform(Basis(), Vector3(0, 1, 10))), "fov": 70.0, "keep_aspect": Camera.KEEP_HEIGHT}
	_walk(root, root, objects)
	for c in root.get_children():
		if c is Camera and c.has_meta("kiln_camera"):
			camera = {"matrix": matrix(c.transform), "fov": c.fov, "keep_aspect": c.keep_aspect}
	# Keyframes as the AnimationPlayer the plugin keeps: {animation: {track path: [[time, value]...]}}.
	var animations = {}
	var player = root.get_node_or_null("KilnAnimation")
	if player is AnimationPlayer:
		for a in player.get_animation_list():
			var anim = player.get_animation(a)
			var tracks = {}
			for t in range(anim.get_track_count()):
				var keys = []
				for k in range(anim.track_get_key_count(t)):
					var v = anim.track_get_key_value(t, k)
					keys.append([anim.track_get_key_time(t, k), [v.x, v.y, v.z]])
				tracks[str(anim.track_get_path(t))] = keys
			animations[a] = tracks
	return {"scene": kiln_name(root), "objects": objects, "camera": camera, "animations": animations}


static func _walk(n: Node, root: Node, out: Array) -> void:
	for c in n.get_children():
		if not (c is Spatial) or c.owner != root:
			continue
		if c is Camera and c.has_meta("kiln_camera") and c.get_parent() == root:
			continue
		var o = {"name": kiln_name(c), "class": c.get_class(), "parent": null if n == root else kiln_name(n), "matrix": matrix(world(c, root))}
		if c is MeshInstance:
			o["mesh"] = c.mesh.get_class() if c.mesh else null
			var m = c.material_override
			if m is SpatialMaterial:
				o["material"] = m.resource_name
				o["color"] = [m.albedo_color.r, m.albedo_color.g, m.albedo_color.b, m.albedo_color.a]
		if c is Light:
			o["energy"] = c.light_energy
		out.append(o)
		_walk(c, root, out)


func _init() -> void:
	var args = OS.get_cmdline_args()
	var scene = ""
	var out = ""
	for i in range(args.size() - 1):
		if args[i] == "--scene":
			scene = args[i + 1]
		elif args[i] == "--out":
			out = args[i + 1]
	var packed = load(scene)
	if packed == null:
		printerr("cannot load ", scene)
		quit(1)
		return
	var root = packed.instance()
	var f = File.new()
	f.open(out, File.WRITE)
	f.store_string(JSON.print(view(root)))
	f.close()
	root.free()
	quit(0)
