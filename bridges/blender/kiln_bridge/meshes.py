"""Mesh data: Blender's primitives, meshes built from Kiln's arrays, and arrays read back.

Mesh datablocks made by the bridge are tagged: `kiln_primitive` (the primitive type) or
`kiln_mesh` (the id of Kiln's content-addressed mesh record), plus `kiln_fp`, a fingerprint of
the geometry when it was tagged. A tag only holds while the fingerprint still matches: once the
artist edits the geometry it is new geometry, sent to Kiln as a mesh blob.
"""
import array
import hashlib

import bmesh

PRIMITIVES = ("Plane", "Cube", "Sphere", "Cylinder")

# Largest mesh Kiln sends (positions are float32 triples); keeps a hostile blob from exhausting memory.
MAX_VERTICES = 20_000_000
MAX_INDICES = 60_000_000


def fingerprint(mesh):
    """A hash of the geometry (vertex positions and faces). Cheap enough to run on an edit event."""
    h = hashlib.blake2b(digest_size=16)
    n = len(mesh.vertices)
    co = array.array("f", bytes(4 * 3 * n))
    mesh.vertices.foreach_get("co", co)
    loops = array.array("i", bytes(4 * len(mesh.loops)))
    mesh.loops.foreach_get("vertex_index", loops)
    starts = array.array("i", bytes(4 * len(mesh.polygons)))
    mesh.polygons.foreach_get("loop_start", starts)
    h.update(b"%d %d %d;" % (n, len(loops), len(starts)))
    h.update(co.tobytes())
    h.update(loops.tobytes())
    h.update(starts.tobytes())
    return h.hexdigest()


def build_primitive(mesh, kind):
    """Fills `mesh` with Blender's own primitive at its default size (Plane 2 m, Cube 2 m, UV Sphere
    and Cylinder radius 1 m, Cylinder 2 m tall), as Add > Mesh makes them."""
    bm = bmesh.new()
    try:
        if kind == "Plane":
            bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=1.0, calc_uvs=True)
        elif kind == "Cube":
            bmesh.ops.create_cube(bm, size=2.0, calc_uvs=True)
        elif kind == "Sphere":
            bmesh.ops.create_uvsphere(bm, u_segments=32, v_segments=16, radius=1.0, calc_uvs=True)
        elif kind == "Cylinder":
            bmesh.ops.create_cone(bm, cap_ends=True, cap_tris=False, segments=32, radius1=1.0, radius2=1.0,
                                  depth=2.0, calc_uvs=True)
        else:
            raise ValueError("unknown primitive %r" % kind)
        bm.to_mesh(mesh)
    finally:
        bm.free()
    if kind in ("Sphere", "Cylinder"):
        for p in mesh.polygons:
            p.use_smooth = kind == "Sphere"
    mesh.update()
    tag(mesh, primitive=kind)


def tag(mesh, primitive=None, mesh_id=None, fp=None):
    for key in ("kiln_primitive", "kiln_mesh"):
        if key in mesh:
            del mesh[key]
    if primitive:
        mesh["kiln_primitive"] = primitive
    if mesh_id:
        mesh["kiln_mesh"] = mesh_id
    mesh["kiln_fp"] = fp or fingerprint(mesh)


def check_arrays(arrays):
    """An error message if Kiln's arrays cannot make a mesh, else None."""
    pos, nor, idx = arrays["positions"], arrays["normals"], arrays["indices"]
    if len(pos) % 3 or len(pos) // 3 > MAX_VERTICES:
        return "positions must be xyz triples (at most %d vertices)" % MAX_VERTICES
    if len(nor) and len(nor) != len(pos):
        return "normals must be one per vertex"
    if len(idx) % 3 or len(idx) > MAX_INDICES:
        return "indices must be whole triangles"
    nv = len(pos) // 3
    if len(idx) and max(idx) >= nv:
        return "an index points past the last vertex"
    if any(v != v or v in (float("inf"), float("-inf")) for v in pos):
        return "positions must be finite"
    return None


def build_from_arrays(mesh, arrays, mesh_id):
    """Fills an empty mesh with Kiln's triangles (vertex positions, per-vertex normals, indices)."""
    pos, nor, idx = arrays["positions"], arrays["normals"], arrays["indices"]
    nv, nt = len(pos) // 3, len(idx) // 3
    mesh.vertices.add(nv)
    mesh.vertices.foreach_set("co", pos)
    mesh.loops.add(len(idx))
    mesh.loops.foreach_set("vertex_index", idx)
    mesh.polygons.add(nt)
    mesh.polygons.foreach_set("loop_start", array.array("i", range(0, 3 * nt, 3)))
    mesh.polygons.foreach_set("loop_total", array.array("i", [3]) * nt)
    mesh.update(calc_edges=True)
    # Kiln's normals verbatim, so that the intact mesh reads back as exactly Kiln's arrays (and so
    # the same content-addressed id); Blender's custom normals are stored compressed.
    mesh.attributes.new("kiln_normal", "FLOAT_VECTOR", "POINT").data.foreach_set("vector", nor if len(nor) else array.array("f", bytes(4 * len(pos))))
    if len(nor):
        # Kiln's normals are per vertex; Blender keeps them as custom split normals (auto smooth on).
        mesh.use_auto_smooth = True
        mesh.polygons.foreach_set("use_smooth", array.array("b", [1]) * nt)
        mesh.normals_split_custom_set_from_vertices([tuple(nor[i:i + 3]) for i in range(0, len(nor), 3)])
    tag(mesh, mesh_id=mesh_id)


def arrays_of(mesh, exact=False):
    """Kiln's arrays for a Blender mesh: one vertex per face corner (so split normals survive),
    triangulated. Returns (positions, normals, indices) as array.array.

    exact: the mesh is an intact Kiln mesh; its arrays are read back as Kiln sent them (vertex
    order, triangles, normals), so Kiln finds the same content-addressed id.
    """
    attr = mesh.attributes.get("kiln_normal")
    if exact and attr is not None and attr.domain == "POINT" and all(p.loop_total == 3 for p in mesh.polygons):
        positions = array.array("f", bytes(4 * 3 * len(mesh.vertices)))
        mesh.vertices.foreach_get("co", positions)
        normals = array.array("f", bytes(4 * 3 * len(mesh.vertices)))
        attr.data.foreach_get("vector", normals)
        indices = array.array("I", bytes(4 * len(mesh.loops)))
        mesh.loops.foreach_get("vertex_index", indices)
        return positions, normals, indices
    mesh.calc_loop_triangles()
    if mesh.has_custom_normals or mesh.use_auto_smooth:
        mesh.calc_normals_split()
    nl = len(mesh.loops)
    co = array.array("f", bytes(4 * 3 * len(mesh.vertices)))
    mesh.vertices.foreach_get("co", co)
    vi = array.array("i", bytes(4 * nl))
    mesh.loops.foreach_get("vertex_index", vi)
    positions = array.array("f", bytes(4 * 3 * nl))
    for k, v in enumerate(vi):
        positions[3 * k:3 * k + 3] = co[3 * v:3 * v + 3]
    normals = array.array("f", bytes(4 * 3 * nl))
    if mesh.use_auto_smooth or mesh.has_custom_normals:
        mesh.loops.foreach_get("normal", normals)
    else:
        # Without auto smooth, loop normals are not computed: take the face normal (flat) or the
        # vertex normal (smooth) of each corner, as Blender shades it.
        vn = array.array("f", bytes(4 * 3 * len(mesh.vertices)))
        mesh.vertices.foreach_get("normal", vn)
        for p in mesh.polygons:
            n = tuple(p.normal)
            for k in range(p.loop_start, p.loop_start + p.loop_total):
                normals[3 * k:3 * k + 3] = vn[3 * vi[k]:3 * vi[k] + 3] if p.use_smooth else array.array("f", n)
    indices = array.array("I", bytes(4 * 3 * len(mesh.loop_triangles)))
    mesh.loop_triangles.foreach_get("loops", indices)
    return positions, normals, indices
