"""Plays the artist inside Blender for fake-kiln.mjs (a dev aid, not a test on its own).

Given with --python BEFORE bridges/blender/start.py. Phase 1: once Kiln has created an Empty
named "Trigger", make five hand edits at once: move Box, add Hand (a new mesh), delete Gone,
rename Old to New, make Red green, lift a corner of Ground, brighten Sun. Phase 2: once the connection has dropped after phase 1, move
Box again while disconnected (so the next hello says dirty).
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "bridges", "blender"))

import bpy  # noqa: E402

import kiln_bridge  # noqa: E402

phase = {"n": 0}


def act():
    s = kiln_bridge.runtime.session()
    if phase["n"] == 0 and "Trigger" in bpy.data.objects:
        phase["n"] = 1
        bpy.data.objects["Box"].location.x = 4.0
        mesh = bpy.data.meshes.new("HandMesh")
        mesh.from_pydata([(0, 0, 0), (1, 0, 0), (0, 1, 0)], [], [(0, 1, 2)])
        hand = bpy.data.objects.new("Hand", mesh)
        bpy.context.scene.collection.objects.link(hand)
        bpy.data.objects.remove(bpy.data.objects["Gone"], do_unlink=True)
        bpy.data.objects["Old"].name = "New"
        red = bpy.data.materials["Red"]
        red.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0, 1, 0, 1)
        bpy.data.objects["Ground"].data.vertices[0].co.z = 1.0  # a mesh edit
        bpy.data.objects["Sun"].data.energy = 3.0
    elif phase["n"] == 1 and s is not None and s.state == "disconnected":
        phase["n"] = 2
        bpy.data.objects["Box"].location.x = 7.0


kiln_bridge.tick_callbacks.append(act)
