# Binary frames of the bridge protocol (docs/bridges.md, "Frames"): u32 little-endian header
# length, a JSON header naming the blob and its parts, then the payload.
extends Reference


# Returns {"key", "kind", "parts": {name: PoolByteArray}} or a String saying what is wrong.
static func decode(frame: PoolByteArray):
	if frame.size() < 4:
		return "a binary frame is shorter than its header length"
	var buf = StreamPeerBuffer.new()
	buf.data_array = frame
	var length = buf.get_u32()
	if length > 65536 or 4 + length > frame.size():
		return "a binary frame's header length is out of range"
	var parsed = JSON.parse(frame.subarray(4, 4 + length - 1).get_string_from_utf8())
	if parsed.error != OK or typeof(parsed.result) != TYPE_DICTIONARY:
		return "a binary frame's header is not JSON"
	var head = parsed.result
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
		parts[name] = frame.subarray(start, start + size - 1) if size > 0 else PoolByteArray()
	return {"key": head["blob"], "kind": head["kind"], "parts": parts}


static func encode(key: String, kind: String, parts: Dictionary) -> PoolByteArray:
	var ranges = {}
	var offset = 0
	for name in parts:
		ranges[name] = [offset, parts[name].size()]
		offset += parts[name].size()
	var head = JSON.print({"blob": key, "kind": kind, "parts": ranges}).to_utf8()
	var buf = StreamPeerBuffer.new()
	buf.put_u32(head.size())
	buf.put_data(head)
	for name in parts:
		buf.put_data(parts[name])
	return buf.data_array


static func floats_to_bytes(values: Array) -> PoolByteArray:
	var buf = StreamPeerBuffer.new()
	for v in values:
		buf.put_float(v)
	return buf.data_array


static func u32s_to_bytes(values: Array) -> PoolByteArray:
	var buf = StreamPeerBuffer.new()
	for v in values:
		buf.put_u32(v)
	return buf.data_array


static func bytes_to_floats(bytes: PoolByteArray) -> Array:
	var buf = StreamPeerBuffer.new()
	buf.data_array = bytes
	var out = []
	for _i in range(bytes.size() / 4):
		out.append(buf.get_float())
	return out


static func bytes_to_u32s(bytes: PoolByteArray) -> Array:
	var buf = StreamPeerBuffer.new()
	buf.data_array = bytes
	var out = []
	for _i in range(bytes.size() / 4):
		out.append(buf.get_u32())
	return out
