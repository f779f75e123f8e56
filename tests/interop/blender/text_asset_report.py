"""Imports an OBJ or USDA file into an empty Blender scene and reports its asset data as one JSON line.

Usage: blender -b --factory-startup --python text_asset_report.py -- <importer> <file>
  importer: import_scene.obj (Blender 3.4's Python OBJ importer), wm.obj_import (its C++ one,
  which also reads vertex colours) or wm.usd_import.
Output: "KILN_JSON:{...}" with, per mesh object (by name): UV layer names, colour attributes
(name, domain, first value) and the distinct colours of the first, material slot names, triangle
count in all and per slot; per material: the image files its node tree samples and the sockets
they feed; and the files of every image loaded with pixels.
"""
import json
import os
import sys

import bpy

args = sys.argv[sys.argv.index("--") + 1:]
importer, path = args[0], args[1]
bpy.ops.wm.read_factory_settings(use_empty=True)
if importer == "import_scene.obj":
    bpy.ops.import_scene.obj(filepath=path)
elif importer == "wm.obj_import":
    bpy.ops.wm.obj_import(filepath=path)
else:
    bpy.ops.wm.usd_import(filepath=path)

meshes = {}
for o in bpy.context.scene.objects:
    if o.type != "MESH":
        continue
    m = o.data
    m.calc_loop_triangles()
    meshes[o.name] = {
        "uv_layers": [u.name for u in m.uv_layers],
        "color_attributes": [[a.name, a.domain, [round(c, 4) for c in a.data[0].color]] for a in getattr(m, "color_attributes", []) if len(a.data)],
        "material_slots": [s.material.name if s.material else None for s in o.material_slots],
        "triangles": len(m.loop_triangles),
        # Triangles per slot, in slot order: the slots' face counts.
        "slot_triangles": [sum(1 for t in m.loop_triangles if t.material_index == k) for k in range(len(o.material_slots))],
        # Distinct vertex colours of the first colour attribute (Blender stores them linear).
        "colors": sorted({tuple(round(c, 3) for c in d.color[:3]) for d in m.color_attributes[0].data}) if len(getattr(m, "color_attributes", [])) else [],
    }

materials = {}
for mat in bpy.data.materials:
    if not mat.use_nodes:
        continue
    feeds = []
    for n in mat.node_tree.nodes:
        if n.type == "TEX_IMAGE" and n.image:
            targets = sorted({f"{l.to_node.type}:{l.to_socket.name}" for l in n.outputs["Color"].links} | {f"{l.to_node.type}:{l.to_socket.name}" for l in n.outputs["Alpha"].links})
            feeds.append([os.path.basename(bpy.path.abspath(n.image.filepath)), targets])
    materials[mat.name] = sorted(feeds)

images = sorted({os.path.basename(bpy.path.abspath(i.filepath)) for i in bpy.data.images if i.size[0] > 0})
print("KILN_JSON:" + json.dumps({"meshes": meshes, "materials": materials, "images": images}))
