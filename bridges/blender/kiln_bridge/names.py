"""Record ids and the Kiln names of Blender datablocks.

Ids follow server/scene/types.ts `ids` (names URI-encoded as JavaScript's encodeURIComponent does).
Blender names are global per datablock type and at most 63 bytes, so a datablock cannot always
carry its Kiln name: it then keeps it in the `kiln_name` property, next to `kiln_bname`, the
Blender name it had when that was written. If the artist renames the datablock, the two differ,
the stored Kiln name is stale and the new Blender name wins (a hand rename is a rename).
"""
import functools
import urllib.parse

APP = "blender"
APP_ID = "app/blender"


# Cached: every apply and every scan computes the ids of the objects it touches, and quote() costs
# ~2 us a name; names repeat, so a bounded cache turns that into a dict lookup.
@functools.lru_cache(maxsize=1 << 16)
def encode(name):
    # encodeURIComponent leaves A-Z a-z 0-9 - _ . ! ~ * ' ( ) alone and UTF-8-escapes the rest.
    return urllib.parse.quote(name, safe="-_.!~*'()")


def scene_id(scene):
    return "scene/%s/%s" % (APP, encode(scene))


def object_id(scene, name):
    return "object/%s/%s/%s" % (APP, encode(scene), encode(name))


def material_id(name):
    return "material/%s/%s" % (APP, encode(name))


def kiln_name(idblock):
    """The Kiln name of a datablock (object, scene, material)."""
    stored = idblock.get("kiln_name")
    if isinstance(stored, str) and idblock.get("kiln_bname") == idblock.name:
        return stored
    return idblock.name


def set_kiln_name(idblock, name):
    """Names a datablock as Kiln calls it, remembering the Kiln name if Blender had to change it."""
    import bpy
    collection = (bpy.data.objects if isinstance(idblock, bpy.types.Object)
                  else bpy.data.scenes if isinstance(idblock, bpy.types.Scene) else bpy.data.materials)
    holder = collection.get(name)
    # Assigning a taken name would make Blender rename the OTHER datablock (3.x): never do that.
    if idblock.name != name and (holder is None or holder == idblock):
        idblock.name = name
    if idblock.name != name:
        idblock["kiln_name"] = name
        idblock["kiln_bname"] = idblock.name
    else:
        for key in ("kiln_name", "kiln_bname"):
            if key in idblock:
                del idblock[key]


def valid_name(name):
    """Kiln's rule: 1-200 characters, no control characters."""
    return isinstance(name, str) and 1 <= len(name) <= 200 and not any(ord(c) < 32 or ord(c) == 127 for c in name)
