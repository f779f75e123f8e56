"""The one bridge session of this Blender process, and what drives it.

With a UI, a bpy.app.timers callback ticks the session every 10 ms. Under `blender -b` timers
never fire, so `run_forever` keeps Blender's main thread in a loop of its own: run the artist
hooks, let the depsgraph evaluate (depsgraph_update_post only fires on an evaluation), then read
the socket with select() for a few milliseconds. A request that arrives wakes select() at once,
so an idle bridge answers within about a millisecond.

Evaluation waits while Kiln's requests stream in: after an object is added, evaluating rebuilds
the depsgraph's relations (~8 ms at 1,000 objects), which on every step of a recipe would cost
more than the step itself. It runs once the stream pauses (EVAL_IDLE), and at least every
EVAL_MAX_GAP, so the artist's edits are still seen within that.
"""
import time
import atexit
import signal
import sys
import traceback

import bpy
from bpy.app.handlers import persistent

from .session import Session, log

TIMER_INTERVAL = 0.01
LOOP_WAIT = 0.005
EVAL_IDLE = 0.02
EVAL_MAX_GAP = 0.25

# Callbacks run on the main thread at every tick (background loop and UI timer). Tests that play
# the artist inside Blender append to it from a --python script given before start.py.
# Kept across a reload of the module (Blender's addon_utils.enable reloads an add-on that was
# imported before, as the artist script does): the list callers hold must stay the live one.
tick_callbacks = globals().get("tick_callbacks", [])

_state = globals().get("_state", {"session": None, "stop": False})


def session():
    return _state["session"]


def start(url, token, max_backoff=None):
    """Creates (or re-targets) the session and lets it connect at the next tick."""
    s = _state["session"]
    if s is None:
        s = Session(url, token) if max_backoff is None else Session(url, token, max_backoff)
        _state["session"] = s
    else:
        s.url, s.token = url, token
        if max_backoff is not None:
            s.max_backoff = max_backoff
    s.reconnect_now()
    if not bpy.app.background and not bpy.app.timers.is_registered(_timer):
        bpy.app.timers.register(_timer, first_interval=0.0, persistent=True)
    return s


def stop():
    s = _state["session"]
    if s is not None:
        s.disconnect()


def _run_callbacks():
    for cb in list(tick_callbacks):
        try:
            cb()
        except Exception:
            traceback.print_exc()


def _timer():
    s = _state["session"]
    _run_callbacks()
    if s is not None:
        try:
            s.tick(0.0)
        except Exception:
            traceback.print_exc()
    return TIMER_INTERVAL


def run_forever():
    """The background loop (blender -b): returns on SIGTERM, SIGINT or `request_stop()`."""
    def on_signal(signum, frame):
        _state["stop"] = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    s = _state["session"]
    last_eval = 0.0
    while not _state["stop"]:
        _run_callbacks()
        try:
            now = time.monotonic()
            if now - s.last_request >= EVAL_IDLE or now - last_eval >= EVAL_MAX_GAP:
                vl = bpy.context.view_layer
                if vl is not None:
                    vl.update()
                last_eval = now
            s.tick(LOOP_WAIT)
        except Exception:
            traceback.print_exc()
    log("stopping")
    s.disconnect()
    sys.stderr.flush()


def request_stop():
    _state["stop"] = True


@persistent
def on_depsgraph(scene, depsgraph):
    s = _state["session"]
    if s is not None:
        s.observer.on_depsgraph(scene, depsgraph)


@persistent
def on_load(*_args):
    s = _state["session"]
    if s is not None:
        s.file_loaded()


def _at_exit():
    # Blender quitting normally (File > Quit, or the end of a -b run): say goodbye to Kiln.
    s = _state["session"]
    if s is not None and s.ws is not None:
        s.disconnect()


atexit.register(_at_exit)


def add_handlers():
    if on_depsgraph not in bpy.app.handlers.depsgraph_update_post:
        bpy.app.handlers.depsgraph_update_post.append(on_depsgraph)
    if on_load not in bpy.app.handlers.load_post:
        bpy.app.handlers.load_post.append(on_load)


def remove_handlers():
    for lst, fn in ((bpy.app.handlers.depsgraph_update_post, on_depsgraph), (bpy.app.handlers.load_post, on_load)):
        if fn in lst:
            lst.remove(fn)
    if bpy.app.timers.is_registered(_timer):
        bpy.app.timers.unregister(_timer)
