"""The stamp: what the open file last agreed with Kiln on (docs/bridges.md "Handshake").

Kept in the `kiln` custom property of every scene (so it is saved inside the .blend and survives
any scene being deleted): project id, operation sequence number, whether the file was edited
while not connected (dirty), and which scene is active (for -b, where no window says it).
"""
import bpy


def read():
    """(stamp or None, dirty) of the open file; the highest seq wins if scenes disagree."""
    best, dirty = None, False
    for s in bpy.data.scenes:
        k = s.get("kiln")
        if k is None:
            continue
        project, seq = k.get("project"), k.get("seq")
        if isinstance(project, str) and project and isinstance(seq, (int, float)):
            if best is None or seq > best["seq"]:
                best = {"project": project, "seq": int(seq)}
        dirty = dirty or bool(k.get("dirty"))
    return best, dirty


def write(project=None, seq=None, dirty=None):
    """Updates the given fields of every scene's stamp."""
    for s in bpy.data.scenes:
        k = dict(s.get("kiln", {}))
        if project is not None:
            k["project"] = project
        if seq is not None:
            k["seq"] = float(seq)  # ID properties hold 32-bit ints; a double is exact to 2^53
        if dirty is not None:
            k["dirty"] = bool(dirty)
        if k != dict(s.get("kiln", {})):
            s["kiln"] = k
