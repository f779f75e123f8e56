"""Dev check of the records <-> bpy mapping, inside real Blender (no Kiln needed).

Run:  blender -b --factory-startup --python tests/interop/blender/mapping_test.py
Exit status 0 when every check passes (prints PASS/FAIL lines).

Applies the README scene in Blender's conventions through apply.apply_changes, checks that
records.dump() gives the same records (1e-5), refuses bad change sets with nothing changed,
rolls back a change set that fails midway, then deletes everything again.
"""
import array
import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bridges", "blender"))

import bpy  # noqa: E402

from kiln_bridge import apply, records  # noqa: E402
from kiln_bridge.names import material_id, object_id, scene_id  # noqa: E402
from kiln_bridge.validate import Refused  # noqa: E402

failures = []


def check(name, ok, detail=""):
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + detail))
    if not ok:
        failures.append(name)


def v(x, y, z):
    return {"x": x, "y": y, "z": z}


def obj(scene, name, kind="mesh", primitive=None, mesh=None, **kw):
    r = {"type": "object", "id": object_id(scene, name), "app": "blender", "scene": scene, "name": name, "kind": kind,
         "primitive": primitive, "mesh": mesh, "parent": None, "material": None, "light": None,
         "position": v(0, 0, 0), "rotation": v(0, 0, 0), "scale": v(1, 1, 1), "keyframes": [], "modifiers": []}
    r.update(kw)
    return r


def dump_map():
    return {r["id"]: r for r in records.dump()}


# A clean file: the factory scene's objects go (as a push from Kiln would remove them).
start = dump_map()
S = "Demo"
scene = {"type": "scene", "id": scene_id(S), "app": "blender", "name": S,
         "camera": {"position": v(0, -8, 3), "rotation": v(75, 0, 0), "fov": 40}}
red = {"type": "material", "id": material_id("Red"), "app": "blender", "name": "Red",
       "color": {"r": 1, "g": 0, "b": 0, "a": 1}, "metallic": 0, "roughness": 0.5}
tri_id = "mesh/abc123"
tri = {"positions": array.array("f", [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1]),
       "normals": array.array("f", [0, 0, 1] * 4),
       "indices": array.array("I", [0, 1, 2, 0, 2, 3, 0, 3, 1])}
target = [
    {"type": "app", "id": "app/blender", "app": "blender", "activeScene": S},
    scene, red,
    obj(S, "Ground", primitive="Plane", scale=v(50, 50, 1)),
    obj(S, "Sun", kind="light", rotation=v(50, -30, 0),
        light={"type": "Directional", "intensity": 1.2, "color": {"r": 1, "g": 1, "b": 1, "a": 1}, "range": 10, "spotAngle": 30}),
    obj(S, "Lamp", kind="light", position=v(2, 2, 3),
        light={"type": "Spot", "intensity": 800, "color": {"r": 1, "g": 0.9, "b": 0.8, "a": 1}, "range": 20, "spotAngle": 45}),
    obj(S, "Box", primitive="Cube", position=v(0, 0, 1), material="Red",
        keyframes=[{"time": 0, "position": v(0, 0, 1)}, {"time": 1 / 3, "scale": v(2, 2, 2)},
                   {"time": 1.5, "position": v(0, 0, 3), "rotation": v(0, 0, 90)}],
        modifiers=[{"type": "mirror", "axis": "y"}, {"type": "array", "count": 3, "offset": v(1.5, 0, 0)}]),
    obj(S, "Child", primitive="Sphere", parent="Box", position=v(3, 0, 0), rotation=v(10, 20, 30), scale=v(0.5, 0.5, 0.5)),
    obj(S, "Pivot", kind="empty", position=v(-2, 1, 0)),
    obj(S, "Tri", mesh=tri_id, parent="Pivot", material="Red"),
    obj(S, "Can", primitive="Cylinder", position=v(4, 4, 1)),
]
target[-1]["keyframes"] = []
target.sort(key=lambda r: r["id"])
changes = [{"id": r["id"], "before": None, "after": r} for r in target]
changes += [{"id": rid, "before": r, "after": None} for rid, r in start.items() if rid not in {t["id"] for t in target} and rid != "app/blender"]

try:
    apply.apply_changes(changes, {tri_id: tri})
    now = dump_map()
    for r in target:
        got = now.get(r["id"])
        check("dump equals applied " + r["id"], got is not None and records.same(got, r),
              json.dumps(got, sort_keys=True) + "\n  !=\n" + json.dumps(r, sort_keys=True))
    check("no extra records", set(now) == {r["id"] for r in target}, str(sorted(set(now) ^ {r["id"] for r in target})))
    ground = bpy.data.objects["Ground"]
    check("plane is 2 m", abs(ground.data.vertices[1].co.x - ground.data.vertices[0].co.x) == 2.0)
    check("sun is SUN with strength", bpy.data.objects["Sun"].data.type == "SUN" and abs(bpy.data.objects["Sun"].data.energy - 1.2) < 1e-6)
    box = bpy.data.objects["Box"]
    check("red base colour", tuple(records.principled(box.material_slots[0].material).inputs["Base Color"].default_value)[:3] == (1, 0, 0))
    check("child parent inverse identity", bpy.data.objects["Child"].matrix_parent_inverse == bpy.data.objects["Child"].matrix_parent_inverse.Identity(4))
    check("camera vertical fit", bpy.data.scenes[S].camera.data.sensor_fit == "VERTICAL")
    check("active scene", bpy.context.window.scene.name == S)

    # Moving the frame makes Blender write the animated channels; that is not an edit.
    bpy.data.scenes[S].frame_set(30)
    check("frame change leaves the record", records.same(dump_map()[object_id(S, "Box")], next(r for r in target if r.get("name") == "Box")))

    # A name taken in another scene: Blender suffixes it, the Kiln name stays.
    other = {"type": "scene", "id": scene_id("Other"), "app": "blender", "name": "Other", "camera": scene["camera"]}
    box2 = obj("Other", "Box", primitive="Cube")
    apply.apply_changes([{"id": other["id"], "before": None, "after": other}, {"id": box2["id"], "before": None, "after": box2}], {})
    now = dump_map()
    check("same name in two scenes", records.same(now.get(box2["id"]), box2) and records.same(now.get(object_id(S, "Box")), next(r for r in target if r.get("name") == "Box")))

    # Refused before touching anything: a bad record in the middle of good ones.
    snapshot = dump_map()
    bad = [{"id": object_id(S, "New"), "before": None, "after": obj(S, "New", primitive="Cube")},
           {"id": object_id(S, "Bad"), "before": None, "after": obj(S, "Bad", primitive="Cube", parent="Nobody")}]
    try:
        apply.apply_changes(bad, {})
        check("refuses a missing parent", False, "applied")
    except Refused as e:
        check("refuses a missing parent", "Nobody" in str(e), str(e))
    check("nothing changed after refusal", dump_map().keys() == snapshot.keys())
    try:
        apply.apply_changes([{"id": object_id(S, "M"), "before": None, "after": obj(S, "M", mesh="mesh/none")}], {})
        check("refuses a mesh without data", False, "applied")
    except Refused as e:
        check("refuses a mesh without data", True)

    # Fails midway (Blender raises): everything done so far is put back.
    orig = apply.set_modifiers
    calls = []
    def boom(o, mods):
        calls.append(o)
        if len(calls) == 2:  # fails on the second object; the restore then runs the real code again
            raise RuntimeError("simulated failure")
        orig(o, mods)
    apply.set_modifiers = boom
    moved = dict(next(r for r in target if r.get("name") == "Ground"), position=v(9, 9, 9))
    try:
        apply.apply_changes([{"id": moved["id"], "before": None, "after": moved},
                             {"id": object_id(S, "Can"), "before": None, "after": None},
                             {"id": object_id(S, "Fresh"), "before": None, "after": obj(S, "Fresh", primitive="Cube")}], {})
        check("midway failure refused", False, "applied")
    except Refused as e:
        check("midway failure refused", "simulated" in str(e), str(e))
    apply.set_modifiers = orig
    after_fail = dump_map()
    check("midway failure restored everything", records.same(after_fail, snapshot),
          str([k for k in set(after_fail) | set(snapshot) if not records.same(after_fail.get(k), snapshot.get(k))]))

    # Delete everything but the scene and app; then the Other scene.
    dels = [{"id": rid, "before": r, "after": None} for rid, r in dump_map().items() if rid.startswith(("object/", "material/"))]
    dels.append({"id": other["id"], "before": other, "after": None})
    apply.apply_changes(dels, {})
    now = dump_map()
    check("deleted all", set(now) == {"app/blender", scene_id(S)}, str(sorted(now)))
    check("other scene gone", "Other" not in bpy.data.scenes)
except Exception:
    traceback.print_exc()
    failures.append("exception")

print("%d failure(s)" % len(failures))
sys.stdout.flush()
os._exit(1 if failures else 0)
