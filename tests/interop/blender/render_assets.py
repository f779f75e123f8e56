"""Renders asset files with Blender Cycles (CPU), each framed the same way, for SSIM comparisons.

Usage: blender -b --factory-startup --python render_assets.py -- <out_dir> <file> [<file> ...]
Each file (.gltf/.glb or .fbx) is imported into an empty scene, framed by a camera looking from a
fixed direction at the bounding sphere of its meshes with faces (as deformed at frame 1), lit by a fixed sun
under a grey world, and rendered at SIZE x SIZE to <out_dir>/<index>.png. Output: "KILN_JSON:[paths]".
The same seed and sample count for every file, so identical geometry and materials give identical pixels.
"""
import json
import math
import os
import sys

import bpy
import numpy
from mathutils import Euler, Matrix, Vector

if not hasattr(numpy, "bool"):
    numpy.bool = bool

SIZE = 160
SAMPLES = 48

COLOUR_INPUTS = {"Base Color", "Emission"}


def srgb_colour_textures():
    """glTF says base colour and emissive textures are sRGB and the other slots are data. Blender
    3.4's glTF importer gives an image one colour space, so an image that one material uses for both
    (09_texture_transform uses one for all five slots) is read as data everywhere, base colour
    included. Give the colour inputs an sRGB copy, so the render shows the asset as glTF defines
    it; Blender's FBX importer does the same itself (its texture wrapper copies such an image)."""
    for material in bpy.data.materials:
        if not material.use_nodes:
            continue
        for node in material.node_tree.nodes:
            if node.type != "TEX_IMAGE" or node.image is None or not node.image.colorspace_settings.is_data:
                continue
            feeds_colour = any(link.to_socket.name in COLOUR_INPUTS for out in node.outputs for link in out.links)
            if feeds_colour:
                copy = node.image.copy()
                copy.colorspace_settings.name = "sRGB"
                node.image = copy


args = sys.argv[sys.argv.index("--") + 1:]
out_dir, files = args[0], args[1:]
outputs = []
for index, path in enumerate(files):
    bpy.ops.wm.read_factory_settings(use_empty=True)
    if path.lower().endswith(".fbx"):
        bpy.ops.import_scene.fbx(filepath=path)
    else:
        bpy.ops.import_scene.gltf(filepath=path)
        srgb_colour_textures()
    scene = bpy.context.scene
    scene.frame_set(1)
    depsgraph = bpy.context.evaluated_depsgraph_get()
    points = []
    for o in scene.objects:
        if o.type != "MESH":
            continue
        evaluated = o.evaluated_get(depsgraph)
        mesh = evaluated.to_mesh()
        # Only what renders frames the shot: meshes of loose points or lines draw nothing.
        if len(mesh.polygons):
            points += [evaluated.matrix_world @ v.co for v in mesh.vertices]
        evaluated.to_mesh_clear()
    if not points:
        raise SystemExit(f"{path}: no mesh to render")
    lo = Vector((min(p.x for p in points), min(p.y for p in points), min(p.z for p in points)))
    hi = Vector((max(p.x for p in points), max(p.y for p in points), max(p.z for p in points)))
    centre, radius = (lo + hi) / 2, max((hi - lo).length / 2, 1e-3)

    cam_data = bpy.data.cameras.new("Cam")
    cam_data.angle = math.radians(40)
    cam = bpy.data.objects.new("Cam", cam_data)
    scene.collection.objects.link(cam)
    direction = Vector((1.0, -1.4, 0.9)).normalized()
    cam.location = centre + direction * (radius / math.sin(math.radians(20)) * 1.05)
    cam.rotation_euler = (centre - cam.location).to_track_quat("-Z", "Y").to_euler()
    scene.camera = cam
    sun_data = bpy.data.lights.new("Sun", "SUN")
    sun_data.energy = 3.0
    sun = bpy.data.objects.new("Sun", sun_data)
    sun.rotation_euler = Euler((math.radians(40), math.radians(10), math.radians(30)))
    scene.collection.objects.link(sun)
    world = bpy.data.worlds.new("Grey")
    world.color = (0.3, 0.3, 0.3)
    scene.world = world

    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = SAMPLES
    scene.cycles.use_adaptive_sampling = False
    scene.cycles.use_denoising = False
    scene.cycles.seed = 0
    scene.render.resolution_x = scene.render.resolution_y = SIZE
    scene.render.resolution_percentage = 100
    scene.view_settings.view_transform = "Standard"
    scene.render.image_settings.file_format = "PNG"
    out = os.path.join(out_dir, f"{index}.png")
    scene.render.filepath = out
    bpy.ops.render.render(write_still=True)
    outputs.append(out)

print("KILN_JSON:" + json.dumps(outputs))
