"""Imports a glTF file into an empty Blender scene and exports it as FBX with Blender's own exporter.

Usage: blender -b --factory-startup --python gltf_to_fbx.py -- <in.gltf> <out.fbx>
Output: a line "KILN_JSON:{...}" with the written file's name.
"""
import json
import sys

import bpy
import numpy

if not hasattr(numpy, "bool"):
    numpy.bool = bool

src, out = sys.argv[sys.argv.index("--") + 1:][:2]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=src)
bpy.ops.export_scene.fbx(filepath=out, add_leaf_bones=False, bake_anim=True)
print("KILN_JSON:" + json.dumps({"file": out}))
