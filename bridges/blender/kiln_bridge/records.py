"""Blender → Kiln records (docs/bridges.md "Records, as the app sees them").

`dump()` reads the whole open file as Kiln's records of app blender. Values that Blender keeps as
float32 are written with 7 significant digits, so 0.3 reads back as 0.3 rather than
0.30000001192092896 and an unchanged value never looks like an edit (compare with `same`, 1e-5).

Meshes that are not an intact primitive or an intact Kiln mesh are reported as "blob:KEY"; the
caller sends their arrays (meshes.arrays_of) as binary frames.
"""
import json
import math

import bpy

from . import meshes
from .names import APP, APP_ID, kiln_name, material_id, object_id, scene_id

DEFAULT_CAMERA = {"position": {"x": 7.36, "y": -6.93, "z": 4.96}, "rotation": {"x": 63.6, "y": 0, "z": 46.7}, "fov": 40}
LIGHT_TYPES = {"SUN": "Directional", "POINT": "Point", "SPOT": "Spot"}
TOLERANCE = 1e-5


def f32(x):
    """A float Blender stored as float32, with the digits float32 really has."""
    return float("%.7g" % x)


COORD = 1e9  # Kiln's bound on coordinates (server/bridges/protocol.ts)


def clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


def vec(v):
    return {"x": f32(clamp(v[0], -COORD, COORD)), "y": f32(clamp(v[1], -COORD, COORD)), "z": f32(clamp(v[2], -COORD, COORD))}


def color(r, g, b, a):
    # Kiln's colours are 0-1 (Blender allows more, e.g. through Python): reported clamped, since one
    # value out of range would make Kiln refuse the whole hello or edit.
    return {"r": f32(clamp(r, 0.0, 1.0)), "g": f32(clamp(g, 0.0, 1.0)), "b": f32(clamp(b, 0.0, 1.0)), "a": f32(clamp(a, 0.0, 1.0))}


def deg(v):
    return {"x": f32(math.degrees(v[0])), "y": f32(math.degrees(v[1])), "z": f32(math.degrees(v[2]))}


def fps(scene):
    return scene.render.fps / scene.render.fps_base


def same(a, b):
    """Records equal to 1e-5 (relative above 1), as the protocol compares them."""
    if a == b:  # the common case, decided in C; only differing values need the tolerance
        return True
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


# -- scenes and the app --------------------------------------------------------------------------

def camera_of(scene):
    cam = scene.camera
    if cam is None or cam.type != "CAMERA":
        return json.loads(json.dumps(DEFAULT_CAMERA))
    if cam.parent is None and cam.rotation_mode == "XYZ":
        loc, rot = cam.location, cam.rotation_euler
    else:
        loc, rot = cam.matrix_world.to_translation(), cam.matrix_world.to_euler("XYZ")
    fov = clamp(math.degrees(vertical_fov(scene, cam.data)), 1e-3, 179.999)
    return {"position": vec(loc), "rotation": deg(rot), "fov": f32(fov)}


def vertical_fov(scene, data):
    """Vertical field of view (radians) of a camera as it renders this scene, whatever its sensor fit."""
    w = scene.render.resolution_x * scene.render.pixel_aspect_x
    h = scene.render.resolution_y * scene.render.pixel_aspect_y
    fit = data.sensor_fit
    if fit == "AUTO":
        fit = "HORIZONTAL" if w >= h else "VERTICAL"
    if fit == "VERTICAL":
        sensor = data.sensor_height if data.sensor_fit == "VERTICAL" else data.sensor_width
        return 2 * math.atan(sensor / 2 / data.lens)
    hfov = 2 * math.atan(data.sensor_width / 2 / data.lens)
    return 2 * math.atan(math.tan(hfov / 2) * h / w)


def scene_record(scene):
    name = kiln_name(scene)
    return {"type": "scene", "id": scene_id(name), "app": APP, "name": name, "camera": camera_of(scene)}


def active_scene():
    """The window's scene; without windows, the scene stamped active (then Blender's context scene)."""
    wm = bpy.context.window_manager
    if wm is not None and len(wm.windows):
        return wm.windows[0].scene
    for s in bpy.data.scenes:
        stamp = s.get("kiln")
        if stamp is not None and stamp.get("active"):
            return s
    return bpy.context.scene


def app_record():
    return {"type": "app", "id": APP_ID, "app": APP, "activeScene": kiln_name(active_scene())}


# -- materials -----------------------------------------------------------------------------------

def principled(material):
    if material.use_nodes and material.node_tree:
        for node in material.node_tree.nodes:
            if node.type == "BSDF_PRINCIPLED":
                return node
    return None


def material_record(material):
    name = kiln_name(material)
    node = principled(material)
    if node is not None:
        c = node.inputs["Base Color"].default_value
        color_ = color(c[0], c[1], c[2], node.inputs["Alpha"].default_value)
        metallic, roughness = node.inputs["Metallic"].default_value, node.inputs["Roughness"].default_value
    else:
        c = material.diffuse_color
        color_ = color(c[0], c[1], c[2], c[3])
        metallic, roughness = material.metallic, material.roughness
    return {"type": "material", "id": material_id(name), "app": APP, "name": name, "color": color_,
            "metallic": f32(clamp(metallic, 0.0, 1.0)), "roughness": f32(clamp(roughness, 0.0, 1.0))}


def kiln_materials():
    """Materials that are Kiln records: surface materials that are used or kept (fake user)."""
    return [m for m in bpy.data.materials if not m.is_grease_pencil and (m.users > 0 or m.use_fake_user)]


# -- objects -------------------------------------------------------------------------------------

def kind_of(obj):
    if obj.type == "MESH":
        return "mesh"
    if obj.type == "LIGHT" and obj.data.type in LIGHT_TYPES:
        return "light"
    return "empty"  # not mirrored (yet): reported as an Empty so hierarchy and transforms stay right


def scene_objects(scene):
    """Objects of a scene that are object records: all but the scene camera."""
    return [o for o in scene.objects if o is not scene.camera]


def local_trs(obj):
    """Position, rotation (XYZ degrees) and scale relative to the parent, as Kiln means them.

    With an identity parent inverse (as the bridge sets it) these are the object's own channels,
    read exactly. A hand-parented object (Ctrl+P keeps a parent inverse) or another rotation
    mode is decomposed from its matrices instead, so world transforms stay right.
    """
    pinv = obj.matrix_parent_inverse
    identity = pinv == pinv.Identity(4) if obj.parent else True
    if identity and obj.rotation_mode == "XYZ":
        loc, rot, scale = obj.location, obj.rotation_euler, obj.scale
    else:
        m = (pinv @ obj.matrix_basis) if obj.parent else obj.matrix_basis
        loc, q, scale = m.decompose()
        rot = q.to_euler("XYZ")
    pos, r, s = vec(loc), deg(rot), vec(scale)
    # Animated channels: Blender overwrites them with the F-curve's value whenever the frame
    # changes, so their current value is not a hand edit. Report the rest value Kiln set.
    rest = obj.get("kiln_rest")
    ad = obj.animation_data
    if rest is not None and ad is not None and ad.action is not None:
        for fc in ad.action.fcurves:
            slot = {"location": (pos, 0), "rotation_euler": (r, 3), "scale": (s, 6)}.get(fc.data_path)
            if slot and 0 <= fc.array_index < 3:
                target, base = slot
                target["xyz"[fc.array_index]] = f32(rest[base + fc.array_index])
    return pos, r, s


def light_props(light):
    c = light.color
    spot = math.degrees(light.spot_size) if light.type == "SPOT" else light.get("kiln_spot_angle", 30.0)
    return {
        "type": LIGHT_TYPES[light.type],
        "intensity": f32(clamp(light.energy, 0.0, 1e6)),
        "color": color(c[0], c[1], c[2], light.get("kiln_alpha", 1.0)),
        "range": f32(clamp(light.get("kiln_range", 10.0), 1e-6, 1e6)),
        # Kiln's cone is below 180 degrees; Blender's goes up to 180.
        "spotAngle": f32(clamp(spot, 1e-6, 179.999)),
    }


def keyframes_of(obj, scene):
    ad = obj.animation_data
    if ad is None or ad.action is None:
        return []
    rate = fps(scene)
    curves = {}
    frames = []
    for fc in ad.action.fcurves:
        if fc.data_path in ("location", "rotation_euler", "scale") and 0 <= fc.array_index < 3:
            curves[(fc.data_path, fc.array_index)] = fc
            for kp in fc.keyframe_points:
                frames.append((kp.co[0], fc.data_path))
    keyed = {}
    for frame, path in sorted(frames):
        # Keys within 1e-3 frame are one key (Kiln merges keys closer than 1e-6 s).
        for f in keyed:
            if abs(f - frame) < 1e-3:
                frame = f
                break
        keyed.setdefault(frame, set()).add(path)
    out = []
    for frame in sorted(keyed):
        if frame < 0:
            continue  # Kiln's keys start at time 0; keys before frame 0 are not mirrored
        key = {"time": f32(frame / rate)}
        for path, field, convert in (("location", "position", f32), ("rotation_euler", "rotation", lambda v: f32(math.degrees(v))),
                                     ("scale", "scale", f32)):
            if path in keyed[frame]:
                default = {"location": obj.location, "rotation_euler": obj.rotation_euler, "scale": obj.scale}[path]
                key[field] = {axis: convert(curves[(path, i)].evaluate(frame) if (path, i) in curves else default[i])
                              for i, axis in enumerate("xyz")}
        out.append(key)
    return out


def modifiers_of(obj):
    out = []
    for m in obj.modifiers:
        if m.type == "MIRROR":
            axes = [a for a, on in zip("xyz", m.use_axis) if on]
            out.append({"type": "mirror", "axis": axes[0] if axes else "x"})
        elif m.type == "ARRAY":
            out.append({"type": "array", "count": int(clamp(m.count, 1, 1000)), "offset": vec(m.relative_offset_displace)})
    return out


def mesh_ref(mesh, verify=True, memo=None):
    """What an object record's geometry fields are: (primitive, mesh) where mesh may be "blob:KEY".

    memo: {mesh name: intact} shared by one dump, so a mesh used by many objects is hashed once."""
    fp = mesh.get("kiln_fp")
    if fp is not None and verify and memo is not None and mesh.name in memo:
        intact = memo[mesh.name]
    else:
        intact = fp is not None and (not verify or fp == meshes.fingerprint(mesh))
        if verify and memo is not None:
            memo[mesh.name] = intact
    if fp is not None and not intact:
        # Edited geometry is new geometry for good: drop the stale tags, so that later scans
        # (which skip the fingerprint) do not take it for the primitive again.
        for key in ("kiln_fp", "kiln_primitive", "kiln_mesh"):
            if key in mesh:
                del mesh[key]
    if intact and mesh.get("kiln_primitive") in meshes.PRIMITIVES:
        return mesh["kiln_primitive"], None
    if intact and isinstance(mesh.get("kiln_mesh"), str):
        return None, mesh["kiln_mesh"]
    return None, "blob:" + blob_key(mesh)


def blob_key(mesh):
    return "bmesh:" + mesh.name


def object_record(obj, scene, scene_name, verify_mesh=True, memo=None):
    name = kiln_name(obj)
    kind = kind_of(obj)
    pos, rot, scale = local_trs(obj)
    parent = obj.parent
    primitive = mesh = material = light = None
    if kind == "mesh":
        primitive, mesh = mesh_ref(obj.data, verify_mesh, memo)
        if len(obj.material_slots) and obj.material_slots[0].material is not None:
            material = kiln_name(obj.material_slots[0].material)
    elif kind == "light":
        light = light_props(obj.data)
    return {
        "type": "object", "id": object_id(scene_name, name), "app": APP, "scene": scene_name, "name": name,
        "kind": kind, "primitive": primitive, "mesh": mesh,
        "parent": kiln_name(parent) if parent is not None and parent is not scene.camera and parent.name in scene.objects else None,
        "material": material, "light": light,
        "position": pos, "rotation": rot, "scale": scale,
        "keyframes": keyframes_of(obj, scene), "modifiers": modifiers_of(obj),
    }


def dump(verify_mesh=True):
    """The whole file as Kiln's records of app blender, in a stable order."""
    out = [app_record()]
    scenes = sorted(bpy.data.scenes, key=kiln_name)
    out += [scene_record(s) for s in scenes]
    out += sorted((material_record(m) for m in kiln_materials()), key=lambda r: r["name"])
    memo = {}
    for s in scenes:
        sname = kiln_name(s)
        out += sorted((object_record(o, s, sname, verify_mesh, memo) for o in scene_objects(s)), key=lambda r: r["name"])
    return out


def mesh_blobs(records):
    """Mesh datablocks whose arrays must travel with these records: {KEY: mesh}."""
    wanted = {r["mesh"][5:] for r in records if r.get("type") == "object" and isinstance(r.get("mesh"), str) and r["mesh"].startswith("blob:")}
    return {blob_key(m): m for m in bpy.data.meshes if blob_key(m) in wanted}
