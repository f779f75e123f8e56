"""Hand edits: what the artist changed since the records last agreed with Kiln.

Two signals, one truth. Blender's depsgraph_update_post handler says *that* something changed
(cheaply, as it happens); a comparison of the scene against the last agreed records (to 1e-5)
says *what*, and is the safety net for what the depsgraph does not report (deletions, renames,
material values, files edited by scripts without an evaluation). Kiln's own `apply` needs no
special echo suppression: the agreed records are updated with what Kiln sent, so the comparison
finds nothing.

The comparison runs when the depsgraph flagged a change (at most every MIN_GAP) and otherwise
every FULL_SCAN seconds.
"""
import time

import bpy

from . import meshes, records

MIN_GAP = 0.01
FULL_SCAN = 0.1


class Observer:
    def __init__(self):
        self.agreed = {}  # record id -> record, as last agreed with Kiln
        self.flagged = False
        self.geometry = set()  # names of meshes whose geometry the depsgraph says changed
        self.last_scan = 0.0

    def reset(self, recs):
        self.agreed = {r["id"]: r for r in recs}
        self.flagged = False
        self.geometry.clear()

    def agree(self, recs=(), deleted=()):
        for r in recs:
            self.agreed[r["id"]] = r
        for rid in deleted:
            self.agreed.pop(rid, None)

    # depsgraph_update_post (registered in __init__.py)
    def on_depsgraph(self, scene, depsgraph):
        self.flagged = True
        for u in depsgraph.updates:
            if u.is_updated_geometry and isinstance(u.id, (bpy.types.Object, bpy.types.Mesh)):
                data = u.id.data if isinstance(u.id, bpy.types.Object) else u.id
                if isinstance(data, bpy.types.Mesh):
                    self.geometry.add(data.name)

    def due(self, now):
        gap = now - self.last_scan
        return gap >= FULL_SCAN or (self.flagged and gap >= MIN_GAP)

    def scan(self, now=None):
        """(changed records, deleted ids) since the agreed records; ([], []) when nothing changed.

        Objects in Edit Mode are skipped: their mesh is only written back when the artist leaves
        Edit Mode, and a half-made edit is not worth recording.
        """
        self.last_scan = time.monotonic() if now is None else now
        self.flagged = False
        # Geometry fingerprints are only recomputed for meshes the depsgraph reported (cheap scans).
        changed_geometry, self.geometry = self.geometry, set()
        current = {}
        editing = set()
        current_list = [records.app_record()]
        scenes = list(bpy.data.scenes)
        current_list += [records.scene_record(s) for s in scenes]
        current_list += [records.material_record(m) for m in records.kiln_materials()]
        for s in scenes:
            sname = records.kiln_name(s)
            for o in records.scene_objects(s):
                verify = o.type == "MESH" and (o.data.name in changed_geometry or o.data.get("kiln_fp") is None)
                rec = records.object_record(o, s, sname, verify_mesh=verify)
                if o.mode == "EDIT":
                    editing.add(rec["id"])
                current_list.append(rec)
        for r in current_list:
            current[r["id"]] = r
        changed = [r for rid, r in current.items() if rid not in editing and not records.same(r, self.agreed.get(rid))]
        deleted = [rid for rid in self.agreed if rid not in current]
        return changed, deleted
