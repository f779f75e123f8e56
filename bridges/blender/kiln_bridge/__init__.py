"""Kiln bridge: puts this Blender under Kiln (docs/bridges.md in the Kiln repository).

Modules: ws (RFC 6455 client), blobs (binary frames), names (ids, Kiln names), validate and apply
(records → bpy), records (bpy → records), meshes (primitives and arrays), observer (hand edits),
stamp (what the file agreed with Kiln), requests (render, save, export), session (the protocol),
runtime (timers, the background loop, handlers), ui (preferences, panel, operators).
"""
bl_info = {
    "name": "Kiln bridge",
    "author": "Kiln",
    "version": (1, 0, 0),
    "blender": (3, 4, 0),
    "location": "3D View > Sidebar > Kiln",
    "description": "Connects Blender to Kiln: Kiln's tools, versions and transactions act on this scene, "
                   "and hand edits flow back to Kiln",
    "category": "Interface",
}

if "bpy" in locals():  # Blender's "Reload Scripts": pick up edited modules
    import importlib
    for _m in (ws, blobs, names, validate, meshes, records, apply, stamp, observer, requests, session, runtime, ui):  # noqa: F821
        importlib.reload(_m)

import bpy  # noqa: E402

from . import ws, blobs, names, validate, meshes, records, apply, stamp, observer, requests, session, runtime, ui  # noqa: E402,F401
from .runtime import tick_callbacks, run_forever, request_stop  # noqa: E402,F401


def start(url, token, max_backoff=None):
    """Connects (and keeps reconnecting) to Kiln at `url` with the bridge `token`."""
    return runtime.start(url, token, max_backoff)


def stop():
    runtime.stop()


def _auto_connect():
    p = ui.prefs(bpy.context)
    if p is not None and p.auto_connect and runtime.session() is None:
        runtime.start(p.address, p.token)
    return None


def register():
    ui.register()
    runtime.add_handlers()
    if not bpy.app.background:
        bpy.app.timers.register(_auto_connect, first_interval=0.5)


def unregister():
    runtime.stop()
    runtime.remove_handlers()
    ui.unregister()
