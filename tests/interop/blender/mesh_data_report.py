"""Imports a glTF or FBX file into an empty Blender scene and reports what its meshes carry.

Usage: blender -b --factory-startup --python mesh_data_report.py -- <file.gltf|file.glb|file.fbx>
Output: "KILN_JSON:{...}" with, per mesh object (by name) that has faces: the custom properties of
the object, its mesh and its materials; its UV layers (name and
every loop's UV, sorted, rounded to 1e-5), colour attributes (domain and every corner's sRGB
colour, sorted, rounded to 1/255), material slot names (null for an empty slot); and every image
with pixels: its size and a hash of its pixels.
"""
import hashlib
import json
import sys

import bpy
import numpy

if not hasattr(numpy, "bool"):
    numpy.bool = bool

path = sys.argv[sys.argv.index("--") + 1]
bpy.ops.wm.read_factory_settings(use_empty=True)
if path.lower().endswith(".fbx"):
    bpy.ops.import_scene.fbx(filepath=path)
else:
    bpy.ops.import_scene.gltf(filepath=path)

def props(idblock):
    """Custom properties as JSON values (Blender's ID properties: numbers, strings, arrays, groups)."""
    out = {}
    for k in idblock.keys():
        if k.startswith("_") or k == "cycles":
            continue
        v = idblock[k]
        out[k] = v.to_dict() if hasattr(v, "to_dict") else v.to_list() if hasattr(v, "to_list") else v
    return out


meshes = {}
for o in bpy.context.scene.objects:
    if o.type != "MESH" or not len(o.data.polygons):
        continue
    m = o.data
    uv_layers = []
    for layer in m.uv_layers:
        uv = numpy.empty(len(layer.data) * 2, dtype=numpy.float64)
        layer.data.foreach_get("uv", uv)
        uv_layers.append({"name": layer.name, "uvs": sorted(map(list, numpy.round(uv.reshape(-1, 2), 5).tolist()))})
    colors = []
    for attr in m.color_attributes:
        # Corner colours as sRGB (Blender stores byte colours sRGB-encoded), whatever the domain.
        values = numpy.empty(len(attr.data) * 4, dtype=numpy.float64)
        attr.data.foreach_get("color_srgb", values)
        values = values.reshape(-1, 4)
        if attr.domain == "POINT":
            index = numpy.empty(len(m.loops), dtype=numpy.int64)
            m.loops.foreach_get("vertex_index", index)
            values = values[index]
        colors.append(sorted(map(list, numpy.round(values * 255).astype(int).tolist())))
    meshes[o.name] = {
        "properties": {"object": props(o), "mesh": props(m), "materials": {s.material.name: props(s.material) for s in o.material_slots if s.material}},
        "uv_layers": uv_layers,
        "colors": colors,
        "material_slots": [s.material.name if s.material else None for s in o.material_slots],
    }

images = []
for i in bpy.data.images:
    if i.size[0] == 0:
        continue
    pixels = numpy.empty(i.size[0] * i.size[1] * i.channels, dtype=numpy.float32)
    i.pixels.foreach_get(pixels)
    images.append({"size": list(i.size), "pixels": hashlib.sha1(numpy.round(pixels * 255).astype(numpy.uint8).tobytes()).hexdigest()})
print("KILN_JSON:" + json.dumps({"meshes": meshes, "images": sorted(images, key=lambda x: x["pixels"])}))
