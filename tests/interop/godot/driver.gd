# Stands in for the user inside a live Godot editor, for tests/interop/live-godot.test.ts.
# Given to `kiln godot --driver THIS`: the Kiln plugin calls start(plugin) and, every frame,
# tick(plugin). It looks for command files the test writes into $KILN_TEST_DRIVER_DIR
# (cmd-<n>.json: {"do": NAME}) and answers each in done-<n>.json. The commands are this file's own
# functions, and every edit goes through the editor's UndoRedo as the inspector and scene dock do.
extends Reference


var dir = ""
var done = {}
var plugin


func start(p) -> void:
	plugin = p
	dir = OS.get_environment("KILN_TEST_DRIVER_DIR")
	var f = File.new()
	f.open(dir.plus_file("pid"), File.WRITE)
	f.store_string(str(OS.get_process_id()))
	f.close()


func tick(_p) -> void:
	if dir == "":
		return
	var d = Directory.new()
	if d.open(dir) != OK:
		return
	var names = []
	d.list_dir_begin(true, true)
	var n = d.get_next()
	while n != "":
		if n.begins_with("cmd-") and not done.has(n):
			names.append(n)
		n = d.get_next()
	d.list_dir_end()
	names.sort()
	for name in names:
		done[name] = true
		var f = File.new()
		f.open(dir.plus_file(name), File.READ)
		var cmd = JSON.parse(f.get_as_text()).result
		f.close()
		var result
		if typeof(cmd) == TYPE_DICTIONARY and has_method("do_" + str(cmd.get("do"))):
			result = call("do_" + cmd["do"], cmd)
		else:
			result = {"ok": false, "error": "unknown command %s" % str(cmd)}
		if not result.has("ok"):
			result = {"ok": true, "result": result}
		var tmp = dir.plus_file("tmp-" + name)
		f.open(tmp, File.WRITE)
		f.store_string(JSON.print(result))
		f.close()
		d.rename(tmp, dir.plus_file(name.replace("cmd-", "done-")))


func root() -> Node:
	return plugin.get_editor_interface().get_edited_scene_root()


func find(name: String) -> Node:
	for n in _all(root()):
		if plugin.session.records.kiln_name(n) == name:
			return n
	return null


func _all(n: Node) -> Array:
	var out = []
	for c in n.get_children():
		out.append(c)
		out += _all(c)
	return out


func do_status(_cmd):
	return {"state": plugin.session.state, "pid": OS.get_process_id(), "compare_ms": plugin.session.compare_cost, "apply_ms": plugin.session.apply_usec / 1000}


func do_dump(_cmd):
	var view = load(OS.get_environment("KILN_GODOT_DUMP")).view(root())
	var blobs = {}
	view["records"] = plugin.session.records.dump(blobs)
	return view


# Move through the property the inspector edits, with its undo.
func _move(ur: UndoRedo, n: Spatial, by: Vector3) -> void:
	ur.create_action("Set translation")
	ur.add_do_property(n, "translation", n.translation + by)
	ur.add_undo_property(n, "translation", n.translation)
	ur.commit_action()


# Add a node as the scene dock does.
func _add(ur: UndoRedo, name: String, at: Vector3) -> void:
	var r = root()
	var node = Spatial.new()
	node.name = name
	node.translation = at
	ur.create_action("Create Node")
	ur.add_do_method(r, "add_child", node)
	ur.add_do_method(node, "set_owner", r)
	ur.add_do_reference(node)
	ur.add_undo_method(r, "remove_child", node)
	ur.commit_action()


func do_artist(_cmd):
	var ur = plugin.get_undo_redo()
	_move(ur, find("Box"), Vector3(2, 0, 0))
	_add(ur, "Hand", Vector3(1, 2, 3))
	var gone = find("Gone")
	ur.create_action("Remove Node")
	ur.add_do_method(gone.get_parent(), "remove_child", gone)
	ur.add_undo_method(gone.get_parent(), "add_child", gone)
	ur.add_undo_method(gone, "set_owner", root())
	ur.add_undo_reference(gone)
	ur.commit_action()
	var old = find("Old")
	ur.create_action("Rename Node")
	ur.add_do_method(old, "set_name", "Renamed")
	ur.add_undo_method(old, "set_name", old.name)
	ur.commit_action()
	return {}


func do_artist2(_cmd):
	var ur = plugin.get_undo_redo()
	_move(ur, find("Box"), Vector3(0, 5, 0))
	_add(ur, "HandMade", Vector3(0, 0, 0))
	return {}


func do_nudge(_cmd):
	var n = find("Nudged")
	_move(plugin.get_undo_redo(), n, Vector3(1, 0, 0))
	return {"x": n.translation.x}
