# The Kiln dock: connection state, address, and Connect / Disconnect.
@tool
extends VBoxContainer

var plugin
var status: Label
var detail: Label
var button: Button
var shown = ""


func _ready() -> void:
	name = "Kiln"
	status = Label.new()
	detail = Label.new()
	detail.autowrap_mode = TextServer.AUTOWRAP_WORD
	button = Button.new()
	button.pressed.connect(_pressed)
	add_child(status)
	add_child(detail)
	add_child(button)
	refresh()


func refresh() -> void:
	if plugin == null or status == null:
		return
	var s = plugin.session
	var text = "%s|%s|%s|%s" % [s.state, s.url, s.last_error, s.enabled]
	if text == shown:
		return
	shown = text
	status.text = {"live": "Connected to Kiln", "hello": "Connecting…", "connecting": "Connecting…"}.get(s.state, "Not connected")
	detail.text = s.url + ("\n" + s.last_error if s.last_error != "" and s.state != "live" else "")
	button.text = "Disconnect" if s.enabled else "Connect"


func _pressed() -> void:
	if plugin.session.enabled:
		plugin.session.goodbye()
	else:
		plugin._configure()
		plugin.session.reconnect_now()
	refresh()
