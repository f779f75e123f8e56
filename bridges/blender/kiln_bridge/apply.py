"""Kiln records → the Blender scene: the `apply` request.

All or nothing: `apply_changes` first checks every change (validate.py and the references in the
state the changes lead to) and refuses before touching anything. Then it applies; if Blender
raises midway, everything already done is put back (deleted objects are only unlinked and
renamed aside until the end, so they come back intact) and the request is refused.

Order: deletions of objects first (so a deleted name is free for a created one), then scenes,
materials, objects (parents in a second pass, since a parent may be created in the same set),
the app record, and finally deletions of materials and scenes.
"""
import math

import bpy

from . import meshes, records
from .names import kiln_name, material_id, object_id, scene_id, set_kiln_name
from .validate import Refused, record as check_record


class World:
    """Index of the open file by Kiln names, built once per apply (lookups by name are O(1))."""

    def __init__(self):
        self.scenes = {kiln_name(s): s for s in bpy.data.scenes}
        self.materials = {kiln_name(m): m for m in records.kiln_materials()}
        self.objects = {}
        for sname, s in self.scenes.items():
            for o in records.scene_objects(s):
                self.objects[(sname, kiln_name(o))] = o
        self._meshes = None
        self._intact = None
        # Record id -> Kiln key, so that a change finds its datablock in O(1).
        self.by_id = {scene_id(n): n for n in self.scenes}
        self.by_id.update((material_id(n), n) for n in self.materials)
        self.by_id.update((object_id(*k), k) for k in self.objects)

    def intact(self, mesh):
        """The mesh still has the geometry it was tagged with (checked once per apply: objects
        often share one mesh, and hashing a big mesh a thousand times would cost seconds)."""
        if self._intact is None:
            self._intact = {}
        key = mesh.name
        if key not in self._intact:
            self._intact[key] = mesh.get("kiln_fp") is not None and mesh.get("kiln_fp") == meshes.fingerprint(mesh)
        return self._intact[key]

    def mesh_tagged(self, mesh_id):
        if self._meshes is None:
            self._meshes = {}
            for m in bpy.data.meshes:
                tag = m.get("kiln_mesh")
                if isinstance(tag, str) and m.get("kiln_fp") is not None:
                    self._meshes.setdefault(tag, []).append(m)
        for m in self._meshes.get(mesh_id, []):
            if m.get("kiln_mesh") == mesh_id and self.intact(m):
                return m
        return None


def kind_matches(obj, rec):
    return records.kind_of(obj) == rec["kind"]


# -- checking ------------------------------------------------------------------------------------

def check(changes, blobs, world):
    """Refuses (before any change) a change set that cannot be applied. Returns the after-state keys."""
    if not isinstance(changes, list):
        raise Refused("changes must be a list")
    seen = set()
    scenes = set(world.scenes)
    materials = set(world.materials)
    objects = {k: kiln_name(o.parent) if o.parent is not None else None for k, o in world.objects.items()}
    mesh_recs = []
    active = None
    for i, c in enumerate(changes):
        if not isinstance(c, dict) or not isinstance(c.get("id"), str):
            raise Refused("changes[%d] needs an id" % i)
        rid, after = c["id"], c.get("after")
        if rid in seen:
            raise Refused("%s appears twice in one apply" % rid)
        seen.add(rid)
        kind = rid.split("/", 1)[0]
        if kind not in ("app", "scene", "object", "material"):
            raise Refused("%s: only app, scene, object and material records are applied to Blender" % rid)
        if after is None:
            if kind == "app":
                raise Refused("the app record cannot be deleted")
            key = _key_of_id(rid, world)
            if kind == "scene" and key is not None:
                scenes.discard(key)
            elif kind == "material" and key is not None:
                materials.discard(key)
            elif kind == "object" and key is not None:
                objects.pop(key, None)
            continue
        check_record(after, rid)
        if after["type"] != {"app": "app", "scene": "scene", "object": "object", "material": "material"}[kind]:
            raise Refused("%s: the record's type does not match its id" % rid)
        if kind == "scene":
            scenes.add(after["name"])
        elif kind == "material":
            materials.add(after["name"])
        elif kind == "object":
            objects[(after["scene"], after["name"])] = after.get("parent")
            mesh_recs.append(after)
        else:
            active = after["activeScene"]
    if not scenes:
        raise Refused("Blender needs at least one scene; this apply would delete them all")
    if active is not None and active not in scenes:
        raise Refused("app/blender: the active scene %r does not exist" % active)
    for (sname, oname), parent in objects.items():
        if sname not in scenes:
            raise Refused("object %r: its scene %r does not exist" % (oname, sname))
        # Parents exist in the same scene and form no loop.
        hops, p = 0, parent
        while p is not None:
            if (sname, p) not in objects:
                raise Refused("object %r: its parent %r is not in scene %r" % (oname, p, sname))
            p = objects[(sname, p)]
            hops += 1
            if hops > len(objects):
                raise Refused("object %r: its parents form a loop" % oname)
    for rec in mesh_recs:
        if rec.get("material") is not None and rec["material"] not in materials:
            raise Refused("object %r: material %r does not exist" % (rec["name"], rec["material"]))
        if rec["kind"] != "mesh" and rec["modifiers"]:
            raise Refused("object %r: only mesh objects take modifiers" % rec["name"])
        if rec["kind"] == "mesh" and rec.get("mesh") is not None:
            blob = blobs.get(rec["mesh"])
            if blob is not None:
                problem = meshes.check_arrays(blob)
                if problem:
                    raise Refused("mesh %s: %s" % (rec["mesh"], problem))
            elif world.mesh_tagged(rec["mesh"]) is None:
                raise Refused("object %r: Blender has no data for %s (no mesh blob was sent)" % (rec["name"], rec["mesh"]))


def _key_of_id(rid, world):
    """The Kiln key (name, or (scene, name)) an existing id refers to, or None if Blender has none."""
    key = world.by_id.get(rid)
    if key is None:
        return None
    kind = rid.split("/", 1)[0]
    table = world.scenes if kind == "scene" else world.materials if kind == "material" else world.objects
    return key if key in table else None


# -- applying ------------------------------------------------------------------------------------

class Run:
    """One apply in progress, with what is needed to put everything back."""

    def __init__(self, world, blobs):
        self.w = world
        self.blobs = blobs
        self.graveyard = []  # (obj, name, collections, parent) of objects set aside
        self.created = []  # datablocks made by this run (removed again on failure)

    # objects set aside rather than removed, so a failure can bring them back as they were
    def bury(self, obj):
        cols = list(obj.users_collection)
        self.graveyard.append((obj, obj.name, cols, obj.parent, obj.matrix_parent_inverse.copy(),
                               [c for c in obj.children]))
        for c in cols:
            c.objects.unlink(obj)
        obj.name = "kiln-deleted"  # frees the name for an object created in the same apply
        for key, o in list(self.w.objects.items()):
            if o == obj:
                del self.w.objects[key]

    def finish(self):
        for obj, *_ in self.graveyard:
            bpy.data.objects.remove(obj, do_unlink=True)

    def undo(self):
        for obj, name, cols, parent, pinv, children in reversed(self.graveyard):
            obj.name = name
            for c in cols:
                if obj.name not in c.objects:
                    c.objects.link(obj)
            obj.parent = parent
            obj.matrix_parent_inverse = pinv
            for ch in children:
                ch.parent = obj


def apply_changes(changes, blobs):
    """Makes Blender match each change's `after`. Raises Refused with Blender unchanged."""
    world = World()
    check(changes, blobs, world)
    # Snapshot of what the changed ids are now, to restore on failure.
    before = {}
    for c in changes:
        before[c["id"]] = current(c["id"], world)
    run = Run(world, blobs)
    try:
        execute(run, [(c["id"], c.get("after")) for c in changes])
    except Refused:
        _restore(before, run)
        raise
    except Exception as e:  # Blender raised midway: put back what was done, then refuse
        _restore(before, run)
        raise Refused("Blender could not apply the change (%s: %s); nothing was changed" % (type(e).__name__, e))
    run.finish()


def _restore(before, failed_run):
    # First what the failed run created (so the names it took are free again), then the objects it
    # set aside, then the records it changed, from the snapshot.
    for block in reversed(failed_run.created):
        try:
            if isinstance(block, bpy.types.Object):
                bpy.data.objects.remove(block, do_unlink=True)
            elif isinstance(block, bpy.types.Scene):
                remove_scene(failed_run, block)
            elif isinstance(block, bpy.types.Material):
                bpy.data.materials.remove(block)
        except ReferenceError:
            pass  # already removed
    failed_run.undo()
    world = World()
    run = Run(world, {})
    # What the failed run created under ids that did not exist before goes away again.
    execute(run, [(rid, rec) for rid, rec in before.items()])
    run.finish()


def current(rid, world):
    """The record an id has in Blender now (with the mesh datablock kept for a restore), or None."""
    kind = rid.split("/", 1)[0]
    key = _key_of_id(rid, world)
    if kind == "app":
        return records.app_record()
    if key is None:
        return None
    if kind == "scene":
        return records.scene_record(world.scenes[key])
    if kind == "material":
        return records.material_record(world.materials[key])
    obj = world.objects[key]
    rec = records.object_record(obj, world.scenes[key[0]], key[0], verify_mesh=False)
    rec["_data"] = obj.data
    rec["_slot"] = obj.material_slots[0].material if len(obj.material_slots) else None
    return rec


def execute(run, changes):
    w = run.w
    ids_of = {}
    for rid, after in changes:
        if after is None and rid.startswith("object/"):
            key = _key_of_id(rid, w)
            if key is not None:
                run.bury(w.objects[key])
    ups = [(rid, a) for rid, a in changes if a is not None]
    for rid, a in ups:
        if a["type"] == "scene":
            upsert_scene(run, a)
    for rid, a in ups:
        if a["type"] == "material":
            upsert_material(run, a)
    objs = [a for rid, a in ups if a["type"] == "object"]
    for a in objs:
        ids_of[(a["scene"], a["name"])] = upsert_object(run, a)
    for a in objs:
        obj = ids_of[(a["scene"], a["name"])]
        parent = w.objects.get((a["scene"], a["parent"])) if a.get("parent") is not None else None
        if obj.parent != parent:
            obj.parent = parent
        if parent is not None and obj.matrix_parent_inverse != obj.matrix_parent_inverse.Identity(4):
            obj.matrix_parent_inverse.identity()
    for rid, a in ups:
        if a["type"] == "app":
            set_active_scene(w.scenes[a["activeScene"]])
    for rid, after in changes:
        if after is None and rid.startswith("material/"):
            key = _key_of_id(rid, w)
            if key is not None:
                bpy.data.materials.remove(w.materials.pop(key))
    for rid, after in changes:
        if after is None and rid.startswith("scene/"):
            key = _key_of_id(rid, w)
            if key is not None:
                remove_scene(run, w.scenes.pop(key))
                for k in [k for k in w.objects if k[0] == key]:
                    del w.objects[k]


# -- scenes and the app --------------------------------------------------------------------------

def upsert_scene(run, rec):
    w = run.w
    s = w.scenes.get(rec["name"])
    if s is None:
        s = bpy.data.scenes.new(rec["name"])
        set_kiln_name(s, rec["name"])
        # A new scene has no world, so renders get a black sky: share the file's default world.
        s.world = bpy.data.worlds.get("World") or bpy.data.worlds.new("World")
        w.scenes[rec["name"]] = s
        w.by_id[rec["id"]] = rec["name"]
        run.created.append(s)
    set_camera(s, rec["camera"])


def set_camera(scene, cam):
    obj = scene.camera
    if obj is None or obj.type != "CAMERA":
        obj = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
        scene.collection.objects.link(obj)
        scene.camera = obj
    data = obj.data
    fov = math.radians(cam["fov"])
    if data.sensor_fit != "VERTICAL" or not records.same(records.f32(math.degrees(data.angle_y)), cam["fov"]):
        data.sensor_fit = "VERTICAL"
        data.angle_y = fov
    p, r = cam["position"], cam["rotation"]
    if obj.parent is not None:
        obj.parent = None
    obj.rotation_mode = "XYZ"
    obj.location = (p["x"], p["y"], p["z"])
    obj.rotation_euler = (math.radians(r["x"]), math.radians(r["y"]), math.radians(r["z"]))


def set_active_scene(scene):
    wm = bpy.context.window_manager
    for win in (wm.windows if wm is not None else []):
        if win.scene != scene:
            win.scene = scene
    # Under -b there may be no window to say which scene is active: the stamp says it.
    for s in bpy.data.scenes:
        stamp = dict(s.get("kiln", {}))
        if bool(stamp.get("active")) != (s == scene):
            stamp["active"] = s == scene
            s["kiln"] = stamp


def remove_scene(run, scene):
    if bpy.context.window_manager is not None:
        for win in bpy.context.window_manager.windows:
            if win.scene == scene:
                win.scene = next(s for s in bpy.data.scenes if s != scene)
    for obj in list(scene.objects):
        if len(obj.users_scene) <= 1:
            bpy.data.objects.remove(obj, do_unlink=True)
    bpy.data.scenes.remove(scene)


# -- materials -----------------------------------------------------------------------------------

def upsert_material(run, rec):
    w = run.w
    m = w.materials.get(rec["name"])
    if m is None:
        m = bpy.data.materials.new(rec["name"])
        set_kiln_name(m, rec["name"])
        m.use_nodes = True
        m.use_fake_user = True  # a Kiln material exists unused too; Blender drops 0-user data on save
        w.materials[rec["name"]] = m
        w.by_id[rec["id"]] = rec["name"]
        run.created.append(m)
    if records.same(records.material_record(m), rec):
        return
    c = rec["color"]
    node = records.principled(m)
    if node is not None:
        node.inputs["Base Color"].default_value = (c["r"], c["g"], c["b"], 1.0)
        node.inputs["Alpha"].default_value = c["a"]
        node.inputs["Metallic"].default_value = rec["metallic"]
        node.inputs["Roughness"].default_value = rec["roughness"]
    # The viewport/Workbench colour follows, so solid views and renders show it.
    m.diffuse_color = (c["r"], c["g"], c["b"], c["a"])
    m.metallic = rec["metallic"]
    m.roughness = rec["roughness"]
    if c["a"] < 1 and m.blend_method == "OPAQUE":
        m.blend_method = "BLEND"


# -- objects -------------------------------------------------------------------------------------

LIGHT_TYPES = {"Directional": "SUN", "Point": "POINT", "Spot": "SPOT"}


def upsert_object(run, rec):
    w = run.w
    key = (rec["scene"], rec["name"])
    scene = w.scenes[rec["scene"]]
    obj = w.objects.get(key)
    if obj is not None and not kind_matches(obj, rec):
        # Blender cannot change what an object is: replace it, keeping its children.
        children = [c for c in obj.children]
        run.bury(obj)
        obj = None
    else:
        children = []
    data = object_data(run, rec, obj)
    if obj is None:
        obj = bpy.data.objects.new(rec["name"], data)
        scene.collection.objects.link(obj)
        set_kiln_name(obj, rec["name"])
        w.objects[key] = obj
        w.by_id[rec["id"]] = key
        run.created.append(obj)
        for c in children:
            c.parent = obj
    elif data is not None and obj.data != data:
        obj.data = data
    if rec["kind"] == "mesh":
        set_material_slot(obj, rec.get("material"), w, rec.get("_slot", False))
    elif rec["kind"] == "light":
        set_light(obj.data, rec["light"])
    p, r, s = rec["position"], rec["rotation"], rec["scale"]
    if obj.rotation_mode != "XYZ":
        obj.rotation_mode = "XYZ"
    rot = (math.radians(r["x"]), math.radians(r["y"]), math.radians(r["z"]))
    obj.location = (p["x"], p["y"], p["z"])
    obj.rotation_euler = rot
    obj.scale = (s["x"], s["y"], s["z"])
    obj["kiln_rest"] = [p["x"], p["y"], p["z"], *rot, s["x"], s["y"], s["z"]]
    set_keyframes(obj, scene, rec["keyframes"])
    if rec["kind"] == "mesh":
        set_modifiers(obj, rec["modifiers"])
    return obj


def object_data(run, rec, obj):
    """The datablock the object should have (reusing the current one when it already fits)."""
    kind = rec["kind"]
    if "_data" in rec:  # a restore: the very datablock the object had
        return rec["_data"]
    if kind == "empty":
        return obj.data if obj is not None else None
    if kind == "light":
        ltype = LIGHT_TYPES[rec["light"]["type"]]
        if obj is not None and obj.type == "LIGHT":
            if obj.data.type != ltype:
                obj.data.type = ltype
            return obj.data
        light = bpy.data.lights.new(rec["name"], ltype)
        run.created.append(light)
        return light
    current = obj.data if obj is not None and obj.type == "MESH" else None
    if rec.get("primitive") is not None:
        if current is not None and current.get("kiln_primitive") == rec["primitive"] and run.w.intact(current):
            return current
        mesh = bpy.data.meshes.new(rec["primitive"])
        run.created.append(mesh)
        meshes.build_primitive(mesh, rec["primitive"])
        return mesh
    mesh_id = rec["mesh"]
    if current is not None and current.get("kiln_mesh") == mesh_id and run.w.intact(current):
        return current
    existing = run.w.mesh_tagged(mesh_id)
    if existing is not None:
        return existing
    mesh = bpy.data.meshes.new(rec["name"])
    run.created.append(mesh)
    meshes.build_from_arrays(mesh, run.blobs[mesh_id], mesh_id)
    run.w._meshes = None
    return mesh


def set_material_slot(obj, name, world, restore_slot):
    mat = world.materials.get(name) if name is not None else None
    if restore_slot is not False:
        mat = restore_slot
    if not len(obj.material_slots):
        if mat is None:
            return
        obj.data.materials.append(None)
    slot = obj.material_slots[0]
    if slot.material != mat:
        # Linked to the object, not the mesh: objects sharing a Kiln mesh may differ in material.
        if mat is not None and slot.link != "OBJECT":
            slot.link = "OBJECT"
        slot.material = mat


def set_light(light, props):
    c = props["color"]
    light.energy = props["intensity"]
    light.color = (c["r"], c["g"], c["b"])
    light["kiln_alpha"] = c["a"]
    light["kiln_range"] = props["range"]
    if light.type == "SPOT":
        light.spot_size = min(math.radians(props["spotAngle"]), math.pi)
    else:
        light["kiln_spot_angle"] = props["spotAngle"]


def set_keyframes(obj, scene, keys):
    if records.same(records.keyframes_of(obj, scene), keys):
        return
    ad = obj.animation_data_create()
    if ad.action is None:
        ad.action = bpy.data.actions.new(obj.name + "Action")
    action = ad.action
    for fc in list(action.fcurves):
        if fc.data_path in ("location", "rotation_euler", "scale"):
            action.fcurves.remove(fc)
    rate = records.fps(scene)
    for path, field, conv in (("location", "position", float), ("rotation_euler", "rotation", math.radians), ("scale", "scale", float)):
        keyed = [k for k in keys if k.get(field) is not None]
        if not keyed:
            continue
        for i, axis in enumerate("xyz"):
            fc = action.fcurves.new(path, index=i, action_group="Object Transforms")
            fc.keyframe_points.add(len(keyed))
            co = []
            for k in keyed:
                co += [k["time"] * rate, conv(k[field][axis])]
            fc.keyframe_points.foreach_set("co", co)
            # Kiln's keys are linear (docs/pipeline.md): Blender interpolates them the same way.
            for kp in fc.keyframe_points:
                kp.interpolation = "LINEAR"
            fc.update()
    if not keys and not action.fcurves:
        ad.action = None
        if action.users == 0:
            bpy.data.actions.remove(action)


def set_modifiers(obj, mods):
    if records.same(records.modifiers_of(obj), mods):
        return
    for m in list(obj.modifiers):
        if m.type in ("MIRROR", "ARRAY"):
            obj.modifiers.remove(m)
    for spec in mods:
        if spec["type"] == "mirror":
            md = obj.modifiers.new("Mirror", "MIRROR")
            axis = spec.get("axis", "x")
            md.use_axis = [a == axis for a in "xyz"]
        else:
            md = obj.modifiers.new("Array", "ARRAY")
            md.count = spec.get("count", 2)
            md.use_relative_offset = True
            md.use_constant_offset = False
            off = spec.get("offset") or {"x": 1, "y": 0, "z": 0}
            md.relative_offset_displace = (off["x"], off["y"], off["z"])
