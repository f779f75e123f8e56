"""Renders a glTF file from straight above with Cycles (CPU), for comparing texture placement.

Usage: blender -b --factory-startup --python render_top.py -- <file> <out.png> <height> <width> <px_height>
The camera sits <height> m above the origin (Blender +Z), looks straight down with a 60 degree
vertical field of view, and is turned so that screen up is Blender -Y (glTF +Z) and screen right
Blender -X (glTF -X). Only the base colour texture stays linked (as Kiln draws it). A white world lights it evenly; Standard view transform. Output: "KILN_JSON:<path>".
"""
import json
import math
import sys

import bpy
import numpy

if not hasattr(numpy, "bool"):
    numpy.bool = bool

file, out, height, width, px_height = sys.argv[sys.argv.index("--") + 1:]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.import_scene.gltf(filepath=file)
scene = bpy.context.scene
# Base colour only, as Kiln's renderer draws it: the file's normal, emissive and
# metallic-roughness maps (with transforms of their own) would add stripes of their own.
for material in bpy.data.materials:
    if not material.use_nodes:
        continue
    for link in list(material.node_tree.links):
        if link.to_node.type == "BSDF_PRINCIPLED" and link.to_socket.name != "Base Color":
            material.node_tree.links.remove(link)
cam_data = bpy.data.cameras.new("Top")
cam_data.sensor_fit = "VERTICAL"
cam_data.angle_y = math.radians(60)
cam = bpy.data.objects.new("Top", cam_data)
scene.collection.objects.link(cam)
cam.location = (0, 0, float(height))
cam.rotation_euler = (0, 0, math.pi)
scene.camera = cam
world = bpy.data.worlds.new("White")
world.use_nodes = True
world.node_tree.nodes["Background"].inputs[0].default_value = (1, 1, 1, 1)
scene.world = world
scene.render.engine = "CYCLES"
scene.cycles.device = "CPU"
scene.cycles.samples = 8
scene.cycles.seed = 1
scene.cycles.use_denoising = False
scene.render.resolution_x = int(width)
scene.render.resolution_y = int(px_height)
scene.view_settings.view_transform = "Standard"
scene.render.filepath = out
bpy.ops.render.render(write_still=True)
print("KILN_JSON:" + json.dumps(out))
