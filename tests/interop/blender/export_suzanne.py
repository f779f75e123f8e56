"""Builds a small animated scene in Blender and exports it as glTF (.glb), FBX and OBJ.

Usage: blender -b --factory-startup --python export_suzanne.py -- <output folder>
Scene: an Empty "Stand" at (0, 0, 1) parenting "Suzanne" (a monkey with an Array modifier, a blue
material, location and rotation keyed at frames 1 and 25). Every exporter applies modifiers.
Output: a line "KILN_JSON:{...}" with what Kiln should find: evaluated triangles, world matrices
and world bounds at frame 1, Suzanne's location at the first and last key, the key times.
"""
import json
import math
import os
import sys

import bpy

out = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
scene = bpy.context.scene
scene.render.fps = 24

bpy.ops.object.empty_add(location=(0, 0, 1))
stand = bpy.context.object
stand.name = "Stand"
bpy.ops.mesh.primitive_monkey_add(location=(1, 2, 3), rotation=(0, 0, math.radians(30)))
suzanne = bpy.context.object
suzanne.name = "Suzanne"
suzanne.data.name = "Suzanne"
suzanne.parent = stand
array = suzanne.modifiers.new("Array", "ARRAY")
array.count = 2
material = bpy.data.materials.new("Blue")
material.use_nodes = True
material.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.1, 0.5, 0.9, 1)
material.diffuse_color = (0.1, 0.5, 0.9, 1)
suzanne.data.materials.append(material)

scene.frame_set(1)
suzanne.keyframe_insert("location", frame=1)
suzanne.keyframe_insert("rotation_euler", frame=1)
suzanne.location = (1, 2, 5)
suzanne.rotation_euler = (0, 0, math.radians(120))
suzanne.keyframe_insert("location", frame=25)
suzanne.keyframe_insert("rotation_euler", frame=25)
scene.frame_start, scene.frame_end = 1, 25

scene.frame_set(25)
last = list(suzanne.matrix_world.translation)
scene.frame_set(1)
first = list(suzanne.matrix_world.translation)
depsgraph = bpy.context.evaluated_depsgraph_get()
evaluated = suzanne.evaluated_get(depsgraph).to_mesh()
evaluated.calc_loop_triangles()
triangles = len(evaluated.loop_triangles)
world = [suzanne.matrix_world @ v.co for v in evaluated.vertices]
bounds = {"min": [min(p[i] for p in world) for i in range(3)], "max": [max(p[i] for p in world) for i in range(3)]}
suzanne.evaluated_get(depsgraph).to_mesh_clear()

os.makedirs(out, exist_ok=True)
bpy.ops.export_scene.gltf(filepath=os.path.join(out, "suzanne.glb"), export_format="GLB", export_apply=True)
bpy.ops.export_scene.fbx(filepath=os.path.join(out, "suzanne.fbx"), use_mesh_modifiers=True, bake_anim=True)
bpy.ops.wm.obj_export(filepath=os.path.join(out, "suzanne.obj"), apply_modifiers=True, export_materials=True)
print("KILN_JSON:" + json.dumps({
    "blender": bpy.app.version_string,
    "triangles": triangles,
    "bounds": bounds,
    "stand": [v for row in stand.matrix_world for v in row],
    "suzanne": [v for row in suzanne.matrix_world for v in row],
    "keys": {"first": first, "last": last, "duration": (25 - 1) / 24},
    "files": sorted(os.listdir(out)),
}))
