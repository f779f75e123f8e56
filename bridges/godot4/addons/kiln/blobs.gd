# Godot 4 port of bridges/godot/addons/kiln/blobs.gd. Binary frames of the bridge protocol (docs/bridges.md, "Frames"): u32 little-endian header
# length, a JSON header naming the blob and its parts, then the payload.
extends RefCounted


# Returns {"key", "kind", "parts": {name: PackedByteArray}} or a String saying what is wrong.
static func decode(frame: PackedByteArray):
	if frame.size() < 4:
		return "a binary frame is shorter than its header length"
	var buf = StreamPeerBuffer.new()
	buf.data_array = frame
	var length = buf.get_u32()
	if length > 65536 or 4 + length > frame.size():
		return "a binary frame's header length is out of range"
	var head = JSON.parse_string(frame.slice(4, 4 + length).get_string_from_utf8())
	if typeof(head) != TYPE_DICTIONARY:
		return "a binary frame's header is not JSON"
	if typeof(head.get("blob")) != TYPE_STRING or not head.get("kind") in ["mesh", "png"]:
		return "a binary frame's header has no blob key or kind"
	var base = 4 + length
	var parts = {}
	var ranges = head.get("parts", {"data": [0, frame.size() - base]})
	if typeof(ranges) != TYPE_DICTIONARY:
		return "a binary frame's parts are not an object"
	for name in ranges:
		var r = ranges[name]
		if typeof(r) != TYPE_ARRAY or r.size() != 2:
			return "part %s is not [offset, length]" % name
		var start = base + int(r[0])
		var size = int(r[1])
		if int(r[0]) < 0 or size < 0 or start + size > frame.size():
			return "part %s runs past the frame" % name
		parts[name] = frame.slice(start, start + size) if size > 0 else PackedByteArray()
	return {"key": head["blob"], "kind": head["kind"], "parts": parts}


static func encode(key: String, kind: String, parts: Dictionary) -> PackedByteArray:
	var ranges = {}
	var offset = 0
	for name in parts:
		ranges[name] = [offset, parts[name].size()]
		offset += parts[name].size()
	var head = JSON.stringify({"blob": key, "kind": kind, "parts": ranges}).to_utf8()
	var buf = StreamPeerBuffer.new()
	buf.put_u32(head.size())
	buf.put_data(head)
	for name in parts:
		buf.put_data(parts[name])
	return buf.data_array


static func floats_to_bytes(values: Array) -> PackedByteArray:
	var buf = StreamPeerBuffer.new()
	for v in values:
		buf.put_float(v)
	return buf.data_array


static func u32s_to_bytes(values: Array) -> PackedByteArray:
	var buf = StreamPeerBuffer.new()
	for v in values:
		buf.put_u32(v)
	return buf.data_array


static func bytes_to_floats(bytes: PackedByteArray) -> Array:
	var buf = StreamPeerBuffer.new()
	buf.data_array = bytes
	var out = []
	for _i in range(bytes.size() / 4):
		out.append(buf.get_float())
	return out


static func bytes_to_u32s(bytes: PackedByteArray) -> Array:
	var buf = StreamPeerBuffer.new()
	buf.data_array = bytes
	var out = []
	for _i in range(bytes.size() / 4):
		out.append(buf.get_u32())
	return out
