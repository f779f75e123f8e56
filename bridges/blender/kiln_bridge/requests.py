"""Kiln's render, save and export requests (apply and dump live in session.py).

Each handler takes the request's fields (already parsed JSON, hostile until checked) and returns
its result, or raises Refused with a message naming the field. Paths come from Kiln, which owns
its folders; here they are only checked to be absolute, of the right extension, and in an
existing folder. Only Blender's own operators are called, by fixed names, never by a name sent.
"""
import contextlib
import os
import tempfile

import bpy

from .names import kiln_name
from .validate import Refused

MAX_RENDER_SIDE = 8192


def _scene(name):
    if name is None:
        from .records import active_scene
        return active_scene()
    for s in bpy.data.scenes:
        if kiln_name(s) == name:
            return s
    raise Refused("scene: Blender has no scene named %r" % (name,))


def _path(value, extensions, field="path"):
    if not isinstance(value, str) or not os.path.isabs(value) or "\0" in value:
        raise Refused("%s must be an absolute path" % field)
    if not value.lower().endswith(extensions):
        raise Refused("%s must end with %s" % (field, " or ".join(extensions)))
    if not os.path.isdir(os.path.dirname(value)):
        raise Refused("%s: the folder %s does not exist" % (field, os.path.dirname(value)))
    return value


# -- render --------------------------------------------------------------------------------------

def render(msg):
    """PNG bytes and result of a render from the scene camera.

    Workbench: it renders headless on the CPU in well under a second and shows the material
    colours (Material colour mode with studio light), which is what a screenshot is for. Cycles
    would need many samples to be readable; Eevee needs an OpenGL context.
    """
    w, h = msg.get("width"), msg.get("height")
    for field, v in (("width", w), ("height", h)):
        if not (isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_RENDER_SIDE):
            raise Refused("%s must be an integer from 1 to %d" % (field, MAX_RENDER_SIDE))
    scene = _scene(msg.get("scene"))
    if scene.camera is None:
        raise Refused("scene %r has no camera to render from" % kiln_name(scene))
    r, shading = scene.render, scene.display.shading
    saved = (r.engine, r.resolution_x, r.resolution_y, r.resolution_percentage, r.filepath, r.film_transparent,
             r.image_settings.file_format, r.image_settings.color_mode, shading.light, shading.color_type, r.use_file_extension)
    fd, path = tempfile.mkstemp(prefix="kiln-render-", suffix=".png")
    os.close(fd)
    try:
        r.engine = "BLENDER_WORKBENCH"
        r.resolution_x, r.resolution_y, r.resolution_percentage = w, h, 100
        r.film_transparent = False
        r.image_settings.file_format = "PNG"
        r.image_settings.color_mode = "RGBA"
        r.use_file_extension = False
        r.filepath = path
        shading.light = "STUDIO"
        shading.color_type = "MATERIAL"
        for layer in scene.view_layers:
            layer.update()
        bpy.ops.render.render(write_still=True, scene=scene.name)
        with open(path, "rb") as f:
            png = f.read()
    finally:
        (r.engine, r.resolution_x, r.resolution_y, r.resolution_percentage, r.filepath, r.film_transparent,
         r.image_settings.file_format, r.image_settings.color_mode, shading.light, shading.color_type, r.use_file_extension) = saved
        try:
            os.unlink(path)
        except OSError:
            pass
    if not png.startswith(b"\x89PNG"):
        raise Refused("Blender's render did not produce a PNG")
    return png, {"width": w, "height": h, "engine": "BLENDER_WORKBENCH"}


# -- save ----------------------------------------------------------------------------------------

def save(msg, before_save):
    path = msg.get("path")
    if path is None:
        if not bpy.data.filepath:
            raise Refused("path: the open file was never saved, so a path is needed")
        path = bpy.data.filepath
    _path(path, (".blend",))
    before_save()  # the stamp goes into the file
    result = bpy.ops.wm.save_as_mainfile(filepath=path, check_existing=False)
    if "FINISHED" not in result:
        raise Refused("Blender did not save %s" % path)
    return {"file": bpy.data.filepath}


# -- export --------------------------------------------------------------------------------------

EXTENSIONS = {"fbx": (".fbx",), "gltf": (".glb", ".gltf"), "obj": (".obj",)}

# FBX for game engines (Unity): Y up, -Z forward, units and axes baked into the transforms so the
# asset arrives at scale 1 and rotation 0 instead of Blender's 100x scale and -90 degree X.
FBX_SETTINGS = {"axis_forward": "-Z", "axis_up": "Y", "apply_unit_scale": True, "apply_scale_options": "FBX_SCALE_ALL",
                "bake_space_transform": True, "global_scale": 1.0}


def export(msg):
    fmt = msg.get("format")
    if fmt not in EXTENSIONS:
        raise Refused("format must be fbx, gltf or obj")
    path = _path(msg.get("path"), EXTENSIONS[fmt])
    options = msg.get("options") or {}
    if not isinstance(options, dict):
        raise Refused("options must be an object")
    apply_modifiers = options.get("apply_modifiers", True) is not False
    animations = options.get("include_animations", True) is not False
    scene = _scene(msg.get("scene"))
    asset = msg.get("asset")
    root = next((o for o in scene.objects if kiln_name(o) == asset and o is not scene.camera), None)
    if root is None:
        raise Refused("asset: scene %r has no object named %r" % (kiln_name(scene), asset))
    members = [root] + list(root.children_recursive)
    warnings = []
    if not apply_modifiers:
        warnings += ["modifier %s of %r not applied (apply_modifiers: false)" % (m.type.lower(), kiln_name(o))
                     for o in members for m in o.modifiers]
    if fmt == "obj":
        warnings.append("obj: node hierarchy and transforms baked into world-space vertices")
        warnings += ["obj: light %r dropped" % kiln_name(o) for o in members if o.type == "LIGHT"]
        warnings += ["obj: animation of %r dropped" % kiln_name(o) for o in members if o.animation_data and o.animation_data.action]
    if not animations:
        warnings += ["animation of %r left out (include_animations: false)" % kiln_name(o) for o in members if o.animation_data and o.animation_data.action]

    window = bpy.context.window_manager.windows[0] if bpy.context.window_manager.windows else None
    view_layer = scene.view_layers[0]
    saved_scene = window.scene if window else None
    saved_sel = [o for o in view_layer.objects if o.select_get(view_layer=view_layer)]
    saved_active = view_layer.objects.active
    hidden = [o for o in members if o.hide_get(view_layer=view_layer)]
    try:
        if window and window.scene != scene:
            window.scene = scene
        for o in saved_sel:
            o.select_set(False, view_layer=view_layer)
        for o in hidden:
            o.hide_set(False, view_layer=view_layer)  # hidden objects cannot be selected, so not exported
        for o in members:
            o.select_set(True, view_layer=view_layer)
        view_layer.objects.active = root
        view_layer.update()  # exporters read evaluated data: bring this scene up to date first
        # With a window, switching its scene is enough: Blender 3.4's glTF exporter crashes (segfault)
        # under temp_override(scene=...) of a scene other than the window's, so only a window-less
        # Blender gets the override.
        with contextlib.nullcontext() if window else bpy.context.temp_override(scene=scene, view_layer=view_layer):
            if fmt == "fbx":
                settings = dict(FBX_SETTINGS, use_mesh_modifiers=apply_modifiers, bake_anim=animations,
                                object_types={"EMPTY", "MESH", "LIGHT", "OTHER"}, use_selection=True)
                result = bpy.ops.export_scene.fbx(filepath=path, **settings)
                settings["object_types"] = sorted(settings["object_types"])
            elif fmt == "gltf":
                settings = {"export_format": "GLB" if path.lower().endswith(".glb") else "GLTF_SEPARATE", "use_selection": True,
                            "export_apply": apply_modifiers, "export_animations": animations, "export_yup": True,
                            "export_lights": True, "export_cameras": False}
                result = bpy.ops.export_scene.gltf(filepath=path, **settings)
            else:
                settings = {"export_selected_objects": True, "apply_modifiers": apply_modifiers, "forward_axis": "NEGATIVE_Z",
                            "up_axis": "Y", "export_materials": True, "export_animation": False}
                result = bpy.ops.wm.obj_export(filepath=path, **settings)
    except RuntimeError as e:
        raise Refused("Blender's %s exporter failed: %s" % (fmt, e))
    finally:
        for o in members:
            o.select_set(False, view_layer=view_layer)
        for o in hidden:
            o.hide_set(True, view_layer=view_layer)
        for o in saved_sel:
            o.select_set(True, view_layer=view_layer)
        view_layer.objects.active = saved_active
        if window and saved_scene is not None and window.scene != saved_scene:
            window.scene = saved_scene
    if "FINISHED" not in result or not os.path.isfile(path):
        raise Refused("Blender's %s exporter wrote nothing" % fmt)
    return {"file": path, "warnings": warnings, "settings": settings}
