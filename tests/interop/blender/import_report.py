"""Imports a file into an empty Blender scene and prints what Blender sees as one JSON line.

Usage: blender -b --factory-startup --python import_report.py -- <file> <gltf|fbx|obj>
Output: a line "KILN_JSON:{...}" with, per object: name, type, parent, world matrix (row-major),
evaluated triangle count and world bounds, first material's base colour, light type and keyframes,
all at the frame of the first key (the rest pose).
"""
import json
import sys

import bpy
import numpy

# Blender 3.4's glTF importer still uses numpy.bool, which numpy 1.24+ removed.
if not hasattr(numpy, "bool"):
    numpy.bool = bool

path, fmt = sys.argv[sys.argv.index("--") + 1:][:2]
bpy.ops.wm.read_factory_settings(use_empty=True)
if fmt == "gltf":
    bpy.ops.import_scene.gltf(filepath=path)
elif fmt == "fbx":
    bpy.ops.import_scene.fbx(filepath=path)
elif fmt == "obj":
    bpy.ops.wm.obj_import(filepath=path)
else:
    raise SystemExit("unknown format " + fmt)

scene = bpy.context.scene
fps = scene.render.fps / scene.render.fps_base
# Report the rest pose: Kiln's keys start at the object's own transform, at the first key frame.
first_frames = [min(k.co[0] for c in o.animation_data.action.fcurves for k in c.keyframe_points)
                for o in scene.objects if o.animation_data and o.animation_data.action]
if first_frames:
    scene.frame_set(int(round(min(first_frames))))
depsgraph = bpy.context.evaluated_depsgraph_get()
objects = []
for obj in scene.objects:
    entry = {
        "name": obj.name,
        "type": obj.type,
        "parent": obj.parent.name if obj.parent else None,
        "matrix_world": [v for row in obj.matrix_world for v in row],
    }
    if obj.type == "MESH":
        mesh = obj.evaluated_get(depsgraph).to_mesh()
        mesh.calc_loop_triangles()
        entry["triangles"] = len(mesh.loop_triangles)
        world = [obj.matrix_world @ v.co for v in mesh.vertices]
        entry["bounds"] = {"min": [min(p[i] for p in world) for i in range(3)], "max": [max(p[i] for p in world) for i in range(3)]}
        obj.evaluated_get(depsgraph).to_mesh_clear()
        mat = obj.material_slots[0].material if obj.material_slots else None
        if mat is not None:
            colour = list(mat.diffuse_color)
            if mat.use_nodes and mat.node_tree and "Principled BSDF" in mat.node_tree.nodes:
                colour = list(mat.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value)
            entry["material"] = {"name": mat.name, "color": colour}
    if obj.type == "LIGHT":
        entry["light"] = {"type": obj.data.type}
    anim = obj.animation_data
    if anim and anim.action:
        frames = sorted({round(k.co[0], 4) for c in anim.action.fcurves for k in c.keyframe_points})
        entry["keys"] = {"count": len(frames), "first": frames[0] / fps, "last": frames[-1] / fps}
    objects.append(entry)
print("KILN_JSON:" + json.dumps({"blender": bpy.app.version_string, "objects": objects}))
