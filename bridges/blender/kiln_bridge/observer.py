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

from . import records

MIN_GAP = 0.01
FULL_SCAN = 0.1
# A full scan costs about 25 us per object; with thousands of objects the periodic one is spaced
# out so that it never takes more than a fifth of the main thread.
MAX_SHARE = 0.2
# While Kiln's requests stream in (a recipe), the periodic scan only looks for what the depsgraph
# cannot report (deletions, renames): it may take a smaller share, so each step stays cheap.
BUSY_SHARE = 0.05


class Observer:
    def __init__(self):
        self.agreed = {}  # record id -> record, as last agreed with Kiln
        self.objects = set()  # names of objects the depsgraph reported
        self.other = False  # the depsgraph reported something else (material, light, scene...)
        self.geometry = set()  # names of meshes whose geometry the depsgraph says changed
        self.last_scan = 0.0
        self.last_full = 0.0
        self.full_interval = FULL_SCAN

    def reset(self, recs):
        self.agreed = {r["id"]: r for r in recs}
        self.objects.clear()
        self.other = False
        self.geometry.clear()

    def agree(self, recs=(), deleted=()):
        for r in recs:
            self.agreed[r["id"]] = r
        for rid in deleted:
            self.agreed.pop(rid, None)

    # depsgraph_update_post (registered by runtime.py)
    def on_depsgraph(self, scene, depsgraph):
        for u in depsgraph.updates:
            idb = u.id
            if isinstance(idb, bpy.types.Object):
                self.objects.add(idb.name)
                if u.is_updated_geometry and isinstance(idb.data, bpy.types.Mesh):
                    self.geometry.add(idb.data.name)
            elif isinstance(idb, bpy.types.Mesh):
                if u.is_updated_geometry:
                    self.geometry.add(idb.name)
                    self.other = True
            elif isinstance(idb, (bpy.types.Material, bpy.types.Light, bpy.types.Camera, bpy.types.NodeTree)):
                self.other = True
            # Scene, collection, world and action updates come with almost any change; what they
            # could mean for records (a renamed or switched scene) the periodic full scan finds.

    def due(self, now, busy=False):
        gap = now - self.last_scan
        interval = self.full_interval * (MAX_SHARE / BUSY_SHARE) if busy else self.full_interval
        if now - self.last_full >= interval or (self.other and gap >= MIN_GAP):
            return "full"
        if self.objects and gap >= MIN_GAP:
            return "objects"
        return None

    def scan(self, now=None, mode="full"):
        """(changed records, deleted ids) since the agreed records; ([], []) when nothing changed.

        mode "objects" looks only at the objects the depsgraph reported (fast path for moves);
        a new name among them (an added or renamed object) turns it into a full scan, so that a
        rename reaches Kiln as one edit (new record + deleted id). Objects in Edit Mode are
        skipped: their mesh is only written back when the artist leaves Edit Mode.
        """
        t0 = time.monotonic()
        self.last_scan = t0 if now is None else now
        changed_geometry, self.geometry = self.geometry, set()
        names, self.objects = self.objects, set()
        if mode == "objects":
            out = self._scan_objects(names, changed_geometry)
            if out is not None:
                return out
        self.other = False
        current_list = [records.app_record()]
        scenes = list(bpy.data.scenes)
        current_list += [records.scene_record(s) for s in scenes]
        current_list += [records.material_record(m) for m in records.kiln_materials()]
        editing = set()
        for s in scenes:
            sname = records.kiln_name(s)
            for o in records.scene_objects(s):
                rec = records.object_record(o, s, sname, verify_mesh=self._verify(o, changed_geometry))
                if o.mode == "EDIT":
                    editing.add(rec["id"])
                current_list.append(rec)
        current = {r["id"]: r for r in current_list}
        changed = [r for rid, r in current.items() if rid not in editing and not records.same(r, self.agreed.get(rid))]
        deleted = [rid for rid in self.agreed if rid not in current]
        self.last_full = time.monotonic()
        self.full_interval = max(FULL_SCAN, (self.last_full - t0) / MAX_SHARE)
        return changed, deleted

    @staticmethod
    def _verify(o, changed_geometry):
        # Fingerprints are recomputed only for meshes the depsgraph reported (keeps scans cheap).
        return o.type == "MESH" and (o.data.name in changed_geometry or o.data.get("kiln_fp") is None)

    def _scan_objects(self, names, changed_geometry):
        changed = []
        for name in names:
            o = bpy.data.objects.get(name)
            if o is None:
                return None  # gone: a deletion, which only a full scan sees
            for s in o.users_scene:
                if o is s.camera:
                    self.other = True  # the scene camera belongs to the scene record
                    continue
                rec = records.object_record(o, s, records.kiln_name(s), verify_mesh=self._verify(o, changed_geometry))
                if rec["id"] not in self.agreed:
                    return None
                if o.mode != "EDIT" and not records.same(rec, self.agreed[rec["id"]]):
                    changed.append(rec)
        if self.other:
            return None
        return changed, []
