"""Stands in for the artist inside a live Blender, for tests/interop/live-blender.test.ts.

Given to `kiln blender --background --script THIS`, so it runs before the bridge starts. At every
tick of the bridge's loop it looks for command files the test writes into $KILN_TEST_DRIVER_DIR
(cmd-<n>.json: {"do": NAME}) and answers each in done-<n>.json. The commands are this file's own
functions: nothing here comes from the network.
"""
import json
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bridges", "blender"))

import bpy  # noqa: E402

import kiln_bridge  # noqa: E402
from dump_scene import bpy_view  # noqa: E402

DIR = os.environ["KILN_TEST_DRIVER_DIR"]
done = set()


def principled(material):
    return material.node_tree.nodes.get("Principled BSDF") if material.use_nodes and material.node_tree else None


def artist5(_cmd):
    """Five hand edits at once: move, add, delete, rename, recolour."""
    bpy.data.objects["Box"].location.x += 2.0
    hand = bpy.data.objects.new("Hand", None)
    kiln_bridge.records.active_scene().collection.objects.link(hand)
    hand.location = (1.0, 2.0, 3.0)
    bpy.data.objects.remove(bpy.data.objects["Gone"], do_unlink=True)
    bpy.data.objects["Old"].name = "Renamed"
    principled(bpy.data.materials["DemoRed"]).inputs["Base Color"].default_value = (0.0, 1.0, 0.0, 1.0)
    return {}


def artist2(_cmd):
    """Two hand edits inside a transaction: move the box, add an object."""
    bpy.data.objects["Box"].location.z += 5.0
    extra = bpy.data.objects.new("HandMade", None)
    kiln_bridge.records.active_scene().collection.objects.link(extra)
    return {}


def nudge(_cmd):
    """One hand edit: move the first object named Nudged along X."""
    bpy.data.objects["Nudged"].location.x += 1.0
    return {"x": bpy.data.objects["Nudged"].location.x}


def dump(_cmd):
    return {"objects": bpy_view(), "records": kiln_bridge.records.dump(verify_mesh=False)}


def status(_cmd):
    s = kiln_bridge.runtime.session()
    return {"state": getattr(s, "state", None), "pid": os.getpid(), "last_error": getattr(s, "last_error", None)}


COMMANDS = {"artist5": artist5, "artist2": artist2, "nudge": nudge, "dump": dump, "status": status}


def tick():
    try:
        names = sorted(n for n in os.listdir(DIR) if n.startswith("cmd-") and n not in done)
    except FileNotFoundError:
        return
    for name in names:
        with open(os.path.join(DIR, name)) as f:
            cmd = json.load(f)  # the test renames a complete file into place
        done.add(name)
        try:
            result = {"ok": True, "result": COMMANDS[cmd["do"]](cmd)}
        except Exception as e:  # reported to the test, which fails with it
            result = {"ok": False, "error": f"{type(e).__name__}: {e}"}
        tmp = os.path.join(DIR, "tmp-" + name)
        with open(tmp, "w") as f:
            json.dump(result, f)
        os.replace(tmp, os.path.join(DIR, name.replace("cmd-", "done-")))


with open(os.path.join(DIR, "pid"), "w") as f:
    f.write(str(os.getpid()))
kiln_bridge.tick_callbacks.append(tick)
