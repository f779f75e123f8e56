"""Preferences (Kiln address, bridge token), the sidebar panel and the Connect/Disconnect operators."""
import bpy

from . import runtime

DEFAULT_URL = "ws://127.0.0.1:8080/bridge"


def prefs(context):
    addon = context.preferences.addons.get(__package__)
    return addon.preferences if addon is not None else None


class KilnBridgePreferences(bpy.types.AddonPreferences):
    bl_idname = __package__

    address: bpy.props.StringProperty(name="Kiln address", default=DEFAULT_URL,
                                      description="WebSocket address of Kiln's bridge endpoint")
    token: bpy.props.StringProperty(name="Bridge token", default="", subtype="PASSWORD",
                                    description="The project's bridge token (`kiln bridge-token` prints it)")
    auto_connect: bpy.props.BoolProperty(name="Connect when Blender starts", default=False)

    def draw(self, context):
        col = self.layout.column()
        col.prop(self, "address")
        col.prop(self, "token")
        col.prop(self, "auto_connect")


class KILN_OT_connect(bpy.types.Operator):
    bl_idname = "kiln.connect"
    bl_label = "Connect to Kiln"
    bl_description = "Connect this Blender to Kiln (reconnects by itself until disconnected)"

    def execute(self, context):
        p = prefs(context)
        s = runtime.session()
        url = p.address if p else (s.url if s else DEFAULT_URL)
        token = p.token if p else (s.token if s else "")
        runtime.start(url, token)
        return {"FINISHED"}


class KILN_OT_disconnect(bpy.types.Operator):
    bl_idname = "kiln.disconnect"
    bl_label = "Disconnect"
    bl_description = "Disconnect from Kiln; later edits are sent at the next connection"

    def execute(self, context):
        runtime.stop()
        return {"FINISHED"}


class VIEW3D_PT_kiln(bpy.types.Panel):
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "Kiln"
    bl_label = "Kiln bridge"

    def draw(self, context):
        layout = self.layout
        s = runtime.session()
        state = s.state if s else "disconnected"
        label = {"live": "Connected", "hello": "Connecting…", "disconnected": "Disconnected"}[state]
        if s and state == "disconnected" and s.enabled:
            label = "Waiting for Kiln…"
        layout.label(text=label, icon="LINKED" if state == "live" else "UNLINKED")
        col = layout.column(align=True)
        col.label(text="Kiln: " + (s.url if s else (prefs(context).address if prefs(context) else DEFAULT_URL)))
        col.label(text="Project: " + ((s.project or "—") if s else "—"))
        col.label(text="Last seq: " + (str(s.last_seq) if s and s.last_seq is not None else "—"))
        if s and s.last_error:
            box = layout.box()
            box.label(text="Last error:", icon="ERROR")
            # Long messages wrap over a few lines rather than being cut at the panel's edge.
            text = s.last_error
            while text:
                box.label(text=text[:48])
                text = text[48:]
        row = layout.row()
        if s and s.enabled:
            row.operator("kiln.disconnect", icon="CANCEL")
            row.operator("kiln.connect", text="Reconnect", icon="FILE_REFRESH")
        else:
            row.operator("kiln.connect", icon="PLUGIN")


CLASSES = (KilnBridgePreferences, KILN_OT_connect, KILN_OT_disconnect, VIEW3D_PT_kiln)


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)


def unregister():
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
