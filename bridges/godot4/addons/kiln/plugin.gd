# Kiln bridge for the Godot 4 editor (docs/bridges.md); a port of bridges/godot/addons/kiln/plugin.gd. Connects out to a running Kiln, mirrors
# Kiln's operations into the edited scene through the editor's UndoRedo (one step per operation),
# and reports what is done here by hand back to Kiln. Address and token: Project Settings >
# Kiln > Bridge, or KILN_BRIDGE_URL / KILN_BRIDGE_TOKEN (what `kiln godot` sets).
@tool
extends EditorPlugin

const Session = preload("res://addons/kiln/session.gd")
const Dock = preload("res://addons/kiln/dock.gd")

const URL_SETTING = "kiln/bridge/url"
const TOKEN_SETTING = "kiln/bridge/token"
const IDLE_SLEEP_USEC = 6900

var session
var dock
var driver  # a test's stand-in for the artist (KILN_GODOT_DRIVER), never anything from the network


func _enter_tree() -> void:
	_setting(URL_SETTING, "ws://127.0.0.1:8080/bridge", PROPERTY_HINT_NONE)
	_setting(TOKEN_SETTING, "", PROPERTY_HINT_NONE)
	session = Session.new(self)
	_configure()
	dock = Dock.new()
	dock.plugin = self
	add_control_to_dock(DOCK_SLOT_RIGHT_BL, dock)
	get_undo_redo().version_changed.connect(_history_changed)
	scene_changed.connect(_scene_changed)
	get_tree().node_added.connect(_tree_changed)
	get_tree().node_removed.connect(_tree_changed)
	get_tree().node_renamed.connect(_tree_changed)
	var d = OS.get_environment("KILN_GODOT_DRIVER")
	if d != "":
		driver = load(d).new()
		driver.start(self)
	set_process(true)


func _exit_tree() -> void:
	if session:
		session.goodbye()
	if dock:
		remove_control_from_docks(dock)
		dock.queue_free()
	get_undo_redo().version_changed.disconnect(_history_changed)


func _setting(name: String, value, hint) -> void:
	if not ProjectSettings.has_setting(name):
		ProjectSettings.set_setting(name, value)
	ProjectSettings.set_initial_value(name, value)
	ProjectSettings.add_property_info({"name": name, "type": TYPE_STRING, "hint": hint})


func _configure() -> void:
	var url = OS.get_environment("KILN_BRIDGE_URL")
	var token = OS.get_environment("KILN_BRIDGE_TOKEN")
	if url == "":
		url = str(ProjectSettings.get_setting(URL_SETTING))
	if token == "":
		token = str(ProjectSettings.get_setting(TOKEN_SETTING))
	session.configure(url, token)


func _process(_delta) -> void:
	if get_editor_interface().get_edited_scene_root() == null and ProjectSettings.get_setting("application/run/main_scene") != "":
		# Nothing open (a fresh editor): the project's main scene is what Kiln works on.
		if not _opened_main:
			_opened_main = true
			get_editor_interface().open_scene_from_path(ProjectSettings.get_setting("application/run/main_scene"))
	if _stop_file != "" and Time.get_ticks_msec() >= _next_stop_check:
		# `kiln godot` was told to stop (Ctrl-C): say goodbye, so Kiln takes the scene back, then quit.
		_next_stop_check = Time.get_ticks_msec() + 200
		if FileAccess.file_exists(_stop_file):
			_stop_file = ""
			session.goodbye()
			get_tree().quit()
			return
	session.poll()
	if driver:
		driver.tick(self)
	# While Kiln talks to us the editor loop sleeps 1 ms between frames (a round trip ~1 ms
	# instead of ~7 ms); idle, it goes back to the editor's usual sleep.
	OS.low_processor_usage_mode_sleep_usec = 1000 if session.busy() else IDLE_SLEEP_USEC
	if dock:
		dock.refresh()


var _opened_main = false
# A file `kiln godot` creates when it is stopped (scripts see no signals).
var _stop_file = OS.get_environment("KILN_GODOT_STOP_FILE")
var _next_stop_check = 0


func _history_changed() -> void:
	if session and not session.applying:
		session.compare_due = true


func _scene_changed(_root) -> void:
	if session:
		session.records.index_stale = true
		session.compare_due = true


func _tree_changed(_node) -> void:
	if session and not session.applying:
		session.records.index_stale = true
		session.compare_due = true


# -- rendering (needs a display: the server build's renderer is a dummy) ---------------------

func render(rid: String, width: int, height: int) -> void:
	var r = get_editor_interface().get_edited_scene_root()
	var vp = SubViewport.new()
	vp.size = Vector2i(width, height)
	vp.world_3d = r.get_world_3d()
	vp.render_target_update_mode = SubViewport.UPDATE_ALWAYS
	vp.msaa_3d = Viewport.MSAA_4X
	var cam = Camera3D.new()
	var scene_cam = session.records.camera_node(r)
	if scene_cam:
		cam.global_transform = scene_cam.global_transform
		cam.fov = scene_cam.fov
	else:
		cam.position = Vector3(0, 1, 10)
		cam.fov = 70
	vp.add_child(cam)
	cam.current = true
	get_editor_interface().get_base_control().add_child(vp)
	for _i in range(3):
		await RenderingServer.frame_post_draw
	var img = vp.get_texture().get_image()
	vp.queue_free()
	if img == null or img.is_empty():
		session.render_done(rid, null, "Godot rendered no image")
		return
	img.convert(Image.FORMAT_RGBA8)
	session.render_done(rid, img.save_png_to_buffer(), "")
