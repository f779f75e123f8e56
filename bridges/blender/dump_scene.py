"""Dumps a .blend as Kiln records, from a separate Blender process (for tests and debugging).

    blender -b FILE.blend --factory-startup --python bridges/blender/dump_scene.py -- [--out dump.json]

Writes JSON {"file", "stamp", "dirty", "records", "objects"}: `records` exactly as the bridge would
report them in a hello (non-primitive meshes as "blob:KEY", their arrays under "meshes": {KEY:
{"positions", "normals", "indices"}}), and `objects`, what bpy itself says of each object (name,
Kiln name, scene, type, world matrix row-major, material base colour, light type and energy) for
checks that must not go through the bridge's own mapping. Without --out, prints one line
starting with "KILN_DUMP ". Exits non-zero on failure.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import bpy  # noqa: E402

from kiln_bridge import meshes, records, stamp  # noqa: E402
from kiln_bridge.names import kiln_name  # noqa: E402


def bpy_view():
    out = []
    # matrix_world is only as fresh as the last evaluation of its scene; Blender evaluates the
    # scene on screen, so the others are brought up to date here.
    for s in bpy.data.scenes:
        for layer in s.view_layers:
            layer.update()
    for s in bpy.data.scenes:
        for o in s.objects:
            entry = {"name": o.name, "kiln_name": kiln_name(o), "scene": s.name, "type": o.type,
                     "scene_camera": o == s.camera,
                     "matrix_world": [v for row in o.matrix_world for v in row]}
            if o.type == "MESH" and len(o.material_slots) and o.material_slots[0].material:
                m = o.material_slots[0].material
                node = records.principled(m)
                entry["material"] = m.name
                entry["base_color"] = list(node.inputs["Base Color"].default_value) if node else list(m.diffuse_color)
            if o.type == "LIGHT":
                entry["light_type"], entry["energy"], entry["color"] = o.data.type, o.data.energy, list(o.data.color)
            if o.type == "CAMERA":
                entry["sensor_fit"], entry["angle_y_deg"] = o.data.sensor_fit, o.data.angle_y * 57.29577951308232
            out.append(entry)
    return out


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    out_path = argv[argv.index("--out") + 1] if "--out" in argv else None
    recs = records.dump(verify_mesh=True)
    arrays = {}
    for key, mesh in records.mesh_blobs(recs).items():
        pos, nor, idx = meshes.arrays_of(mesh)
        arrays[key] = {"positions": list(pos), "normals": list(nor), "indices": list(idx)}
    st, dirty = stamp.read()
    doc = {"file": bpy.data.filepath, "stamp": st, "dirty": dirty, "records": recs, "meshes": arrays, "objects": bpy_view()}
    text = json.dumps(doc)
    if out_path:
        with open(out_path, "w") as f:
            f.write(text)
    else:
        print("KILN_DUMP " + text, flush=True)


if __name__ == "__main__":  # also imported by tests for bpy_view()
    try:
        main()
    except Exception:
        import traceback
        traceback.print_exc()
        sys.stdout.flush()
        os._exit(1)
