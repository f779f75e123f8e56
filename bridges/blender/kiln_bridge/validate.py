"""Checks Kiln's records before anything in Blender is touched.

`apply` is all or nothing: every change is checked here first (shapes, ids, references in the
state the change set leads to), so that a bad change is refused with nothing changed. Messages
name the record and field, since they reach the user through Kiln's APP_REFUSED answer.
"""
import math

from . import meshes
from .names import APP, APP_ID, material_id, object_id, scene_id, valid_name


class Refused(Exception):
    """The change cannot be applied; the message says why (sent as APP_REFUSED)."""


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _vec(v, where):
    if not (isinstance(v, dict) and all(_num(v.get(k)) for k in "xyz")):
        raise Refused("%s must be {x, y, z} finite numbers" % where)


def _color(v, where):
    if not (isinstance(v, dict) and all(_num(v.get(k)) for k in "rgba")):
        raise Refused("%s must be {r, g, b, a} finite numbers" % where)


def record(rec, rid):
    """Raises Refused if `rec` is not a well-formed record with id `rid`."""
    if not isinstance(rec, dict):
        raise Refused("%s: the record must be an object" % rid)
    t = rec.get("type")
    if rec.get("id") != rid:
        raise Refused("%s: the record's id is %r" % (rid, rec.get("id")))
    if t != "app" and rec.get("app") != APP:
        raise Refused("%s: not a record of app blender" % rid)
    if t == "app":
        if rid != APP_ID or not valid_name(rec.get("activeScene")):
            raise Refused("%s: an app record needs id app/blender and activeScene" % rid)
    elif t == "scene":
        if not valid_name(rec.get("name")) or rid != scene_id(rec["name"]):
            raise Refused("%s: scene name and id disagree" % rid)
        cam = rec.get("camera")
        if not isinstance(cam, dict):
            raise Refused("%s: camera missing" % rid)
        _vec(cam.get("position"), rid + " camera.position")
        _vec(cam.get("rotation"), rid + " camera.rotation")
        if not (_num(cam.get("fov")) and 0 < cam["fov"] < 180):
            raise Refused("%s: camera.fov must be between 0 and 180 degrees" % rid)
    elif t == "material":
        if not valid_name(rec.get("name")) or rid != material_id(rec["name"]):
            raise Refused("%s: material name and id disagree" % rid)
        _color(rec.get("color"), rid + " color")
        for f in ("metallic", "roughness"):
            if not _num(rec.get(f)):
                raise Refused("%s: %s must be a number" % (rid, f))
    elif t == "object":
        _object(rec, rid)
    else:
        raise Refused("%s: records of type %r are not applied to Blender" % (rid, t))


def _object(rec, rid):
    if not (valid_name(rec.get("name")) and valid_name(rec.get("scene")) and rid == object_id(rec["scene"], rec["name"])):
        raise Refused("%s: object scene/name and id disagree" % rid)
    for f in ("position", "rotation", "scale"):
        _vec(rec.get(f), "%s %s" % (rid, f))
    kind = rec.get("kind")
    if kind not in ("mesh", "empty", "light"):
        raise Refused("%s: kind must be mesh, empty or light" % rid)
    prim, mesh = rec.get("primitive"), rec.get("mesh")
    if kind == "mesh":
        if (prim is None) == (mesh is None):
            raise Refused("%s: a mesh object needs exactly one of primitive and mesh" % rid)
        if prim is not None and prim not in meshes.PRIMITIVES:
            raise Refused("%s: unknown primitive %r" % (rid, prim))
        if mesh is not None and not (isinstance(mesh, str) and mesh.startswith("mesh/")):
            raise Refused("%s: mesh must be a mesh/<hash> id" % rid)
    elif prim is not None or mesh is not None:
        raise Refused("%s: only mesh objects have a primitive or mesh" % rid)
    for f in ("parent", "material"):
        if rec.get(f) is not None and not valid_name(rec[f]):
            raise Refused("%s: %s must be a name or null" % (rid, f))
    if rec.get("parent") == rec["name"]:
        raise Refused("%s: an object cannot be its own parent" % rid)
    light = rec.get("light")
    if kind == "light":
        if not isinstance(light, dict) or light.get("type") not in ("Directional", "Point", "Spot"):
            raise Refused("%s: light.type must be Directional, Point or Spot" % rid)
        _color(light.get("color"), rid + " light.color")
        for f in ("intensity", "range", "spotAngle"):
            if not _num(light.get(f)):
                raise Refused("%s: light.%s must be a number" % (rid, f))
        if light["type"] == "Spot" and not 0 < light["spotAngle"] <= 180:
            raise Refused("%s: light.spotAngle must be in (0, 180]" % rid)
    elif light is not None:
        raise Refused("%s: only lights have light properties" % rid)
    keys = rec.get("keyframes")
    if not isinstance(keys, list) or len(keys) > 10000:
        raise Refused("%s: keyframes must be a list (at most 10000)" % rid)
    for i, k in enumerate(keys):
        if not (isinstance(k, dict) and _num(k.get("time"))):
            raise Refused("%s: keyframes[%d].time must be a number" % (rid, i))
        for f in ("position", "rotation", "scale"):
            if k.get(f) is not None:
                _vec(k[f], "%s keyframes[%d].%s" % (rid, i, f))
    mods = rec.get("modifiers")
    if not isinstance(mods, list) or len(mods) > 16:
        raise Refused("%s: modifiers must be a list (at most 16)" % rid)
    for i, m in enumerate(mods):
        if not isinstance(m, dict) or m.get("type") not in ("mirror", "array"):
            raise Refused("%s: modifiers[%d].type must be mirror or array" % (rid, i))
        if m["type"] == "mirror" and m.get("axis", "x") not in ("x", "y", "z"):
            raise Refused("%s: modifiers[%d].axis must be x, y or z" % (rid, i))
        if m["type"] == "array":
            c = m.get("count", 2)
            if not (isinstance(c, int) and not isinstance(c, bool) and 1 <= c <= 1000):
                raise Refused("%s: modifiers[%d].count must be an integer 1-1000" % (rid, i))
            if m.get("offset") is not None:
                _vec(m["offset"], "%s modifiers[%d].offset" % (rid, i))
