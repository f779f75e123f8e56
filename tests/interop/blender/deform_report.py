"""Imports a glTF or FBX file into an empty Blender scene and reports its skins and shape keys.

Usage: blender -b --factory-startup --python deform_report.py -- <file.gltf|file.glb|file.fbx> [frame ...]
Output: "KILN_JSON:{...}" with
- bones: per bone name, its head in world space at rest, and per given frame its deformation
  matrix (pose world · rest world⁻¹, row-major): what skinning applies, independent of the bone
  axis convention each importer picks;
- meshes: per mesh object with faces, its vertex groups (names) and, per vertex world position
  before deformation (rounded to 1e-4, duplicates merged; importers keep mesh data in different
  local axes), each group's weight; its shape keys (name, value at the last frame given, keyframes)
  and each key's offset (in world axes) per vertex position.
"""
import json
import sys

import bpy
import numpy
from mathutils import Matrix

if not hasattr(numpy, "bool"):
    numpy.bool = bool

args = sys.argv[sys.argv.index("--") + 1:]
path, frames = args[0], [float(f) for f in args[1:]]
bpy.ops.wm.read_factory_settings(use_empty=True)
if path.lower().endswith(".fbx"):
    bpy.ops.import_scene.fbx(filepath=path)
else:
    bpy.ops.import_scene.gltf(filepath=path)
scene = bpy.context.scene


def key(co):
    return ",".join("%.4f" % (round(c, 4) + 0.0) for c in co)


armatures = [o for o in scene.objects if o.type == "ARMATURE"]
bones = {}
scene.frame_set(0)
for arm in armatures:
    for b in arm.data.bones:
        rest = arm.matrix_world @ b.matrix_local
        bones[b.name] = {"head": [round(v, 5) for v in rest.translation], "rest": rest, "frames": []}
for f in frames:
    scene.frame_set(int(f), subframe=f - int(f))
    for arm in armatures:
        for pb in arm.pose.bones:
            entry = bones[pb.name]
            deform = (arm.matrix_world @ pb.matrix) @ entry["rest"].inverted()
            entry["frames"].append([round(v, 6) for row in deform for v in row])
for entry in bones.values():
    del entry["rest"]

meshes = {}
for o in scene.objects:
    if o.type != "MESH" or not len(o.data.polygons):
        continue
    me = o.data
    world = o.matrix_world.copy()
    rot = world.to_3x3()
    names = [g.name for g in o.vertex_groups]
    weights = {}
    for v in me.vertices:
        weights[key(world @ v.co)] = {names[g.group]: round(g.weight, 6) for g in v.groups if g.weight > 0}
    shapes = []
    if me.shape_keys:
        basis = me.shape_keys.reference_key
        for kb in me.shape_keys.key_blocks:
            if kb == basis:
                continue
            offsets = {key(world @ basis.data[i].co): [round(c, 5) + 0.0 for c in rot @ (kb.data[i].co - basis.data[i].co)] for i in range(len(me.vertices))}
            fcurve_values = []
            anim = me.shape_keys.animation_data
            if anim and anim.action:
                for fc in anim.action.fcurves:
                    if fc.data_path == 'key_blocks["%s"].value' % kb.name:
                        fcurve_values = [[round(k.co[0], 4), round(k.co[1], 5)] for k in fc.keyframe_points]
            shapes.append({"name": kb.name, "value": round(kb.value, 6), "offsets": offsets, "keys": fcurve_values})
    meshes[o.name] = {"groups": sorted(names), "weights": weights, "shape_keys": shapes, "armature": any(m.type == "ARMATURE" and m.object for m in o.modifiers)}

print("KILN_JSON:" + json.dumps({"bones": bones, "meshes": meshes}))
