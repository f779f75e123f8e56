"""Starts the Kiln bridge from this checkout.

    blender -b [FILE.blend] --factory-startup --python bridges/blender/start.py -- --url URL --token TOKEN

(or KILN_BRIDGE_URL / KILN_BRIDGE_TOKEN in the environment; --max-backoff / KILN_BRIDGE_MAX_BACKOFF
caps the reconnect backoff, 1.5 s by default). Under -b it runs the bridge's loop on the main
thread until SIGTERM/SIGINT, then Blender quits. With a UI it enables the add-on, connects, and
returns (timers drive the bridge).

Scripts that play the artist can be given with --python BEFORE this one: they put this folder on
sys.path, `import kiln_bridge` and append functions to `kiln_bridge.tick_callbacks`.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import addon_utils  # noqa: E402
import bpy  # noqa: E402


def arguments():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="start.py", description="Kiln bridge for Blender")
    p.add_argument("--url", default=os.environ.get("KILN_BRIDGE_URL", "ws://127.0.0.1:8080/bridge"))
    p.add_argument("--token", default=os.environ.get("KILN_BRIDGE_TOKEN", ""))
    p.add_argument("--max-backoff", type=float, default=float(os.environ.get("KILN_BRIDGE_MAX_BACKOFF", "1.5")))
    args, _unknown = p.parse_known_args(argv)  # other scripts' arguments may follow "--" too
    return args


def main():
    args = arguments()
    # Enabled as an add-on (not just imported) so its preferences and panel exist as when installed.
    addon_utils.enable("kiln_bridge", default_set=True, persistent=False)
    import kiln_bridge
    if not kiln_bridge.ui.prefs(bpy.context):
        kiln_bridge.register()  # enable() refused (e.g. an older copy installed): register directly
    prefs = kiln_bridge.ui.prefs(bpy.context)
    if prefs is not None:
        prefs.address, prefs.token = args.url, args.token
    kiln_bridge.start(args.url, args.token, max_backoff=max(0.25, min(args.max_backoff, 5.0)))
    if bpy.app.background:
        kiln_bridge.run_forever()


main()
