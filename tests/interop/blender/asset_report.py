"""Imports a glTF file into an empty Blender scene and reports its asset data as one JSON line.

Usage: blender -b --factory-startup --python asset_report.py -- <file.gltf|file.glb>
Output: "KILN_JSON:{...}" with, per mesh object (by name): UV layer count, colour attribute count,
material slot count, vertex group names, shape key names; per armature: bone names; images
(count of images with pixels); and, at three frames, every pose bone's world matrix (row-major).
"""
import json
import sys

import bpy
import numpy

if not hasattr(numpy, "bool"):
    numpy.bool = bool

path = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=path)
scene = bpy.context.scene

meshes, armatures = {}, {}
for o in scene.objects:
    if o.type == "MESH":
        m = o.data
        meshes[o.name] = {
            "uv_layers": len(m.uv_layers),
            "color_attributes": len(getattr(m, "color_attributes", [])),
            "material_slots": len(o.material_slots),
            "vertex_groups": sorted(g.name for g in o.vertex_groups),
            "shape_keys": [k.name for k in m.shape_keys.key_blocks] if m.shape_keys else [],
        }
    elif o.type == "ARMATURE":
        armatures[o.name] = sorted(b.name for b in o.data.bones)

images = sorted(i.name for i in bpy.data.images if i.size[0] > 0)
poses = {}
start, end = scene.frame_start, scene.frame_end
for frame in sorted({start, (start + end) // 2, end}):
    scene.frame_set(frame)
    for o in scene.objects:
        if o.type == "ARMATURE":
            for b in o.pose.bones:
                poses.setdefault(b.name, []).append([v for row in (o.matrix_world @ b.matrix) for v in row])
print("KILN_JSON:" + json.dumps({"meshes": meshes, "armatures": armatures, "images": len(images), "poses": poses, "frames": [start, end]}))
