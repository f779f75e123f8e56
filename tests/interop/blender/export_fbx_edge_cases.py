"""Writes FBX files that exercise what the FBX reader handles beyond plain triangle meshes.

Usage: blender -b --factory-startup --python export_fbx_edge_cases.py -- <output folder>
- shapes.fbx: a cube with a shape key whose value is animated (blend shapes and their animation
  curves, which Kiln drops) and keyed location (which Kiln keeps).
- concave.fbx: one U-shaped 8-sided polygon (area 7), exported as an n-gon.
Output: a line "KILN_JSON:{...}" with the triangle counts Blender itself makes of them.
"""
import json
import os
import sys

import bpy

out = sys.argv[sys.argv.index("--") + 1]
os.makedirs(out, exist_ok=True)


def triangles(obj):
    mesh = obj.data
    mesh.calc_loop_triangles()
    return len(mesh.loop_triangles)


bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.frame_start, scene.frame_end = 1, 20
bpy.ops.mesh.primitive_cube_add()
cube = bpy.context.object
cube.name = "Morph"
cube.data.name = "MorphMesh"
cube.shape_key_add(name="Basis")
key = cube.shape_key_add(name="Wide")
for v in key.data:
    v.co.x *= 2
key.value = 0.0
key.keyframe_insert("value", frame=1)
key.value = 1.0
key.keyframe_insert("value", frame=20)
cube.keyframe_insert("location", frame=1)
cube.location.x = 3
cube.keyframe_insert("location", frame=20)
bpy.ops.export_scene.fbx(filepath=os.path.join(out, "shapes.fbx"), bake_anim=True, add_leaf_bones=False)
shape_triangles = triangles(cube)

bpy.ops.wm.read_factory_settings(use_empty=True)
mesh = bpy.data.meshes.new("U")
mesh.from_pydata([(0, 0, 0), (3, 0, 0), (3, 3, 0), (2, 3, 0), (2, 1, 0), (1, 1, 0), (1, 3, 0), (0, 3, 0)], [], [list(range(8))])
u = bpy.data.objects.new("U", mesh)
bpy.context.scene.collection.objects.link(u)
bpy.ops.export_scene.fbx(filepath=os.path.join(out, "concave.fbx"), add_leaf_bones=False)

print("KILN_JSON:" + json.dumps({"shapes": shape_triangles, "concave": triangles(u), "files": sorted(os.listdir(out))}))
