import { describe, expect, it } from "vitest";
import { EventBus } from "./bus";
import { operationEvent, MAX_RECORDS } from "./operation-event";
import type { Change, ObjectRecord } from "../scene/types";

const version = (n: number) => ({ kind: "version" as const, action: "saved" as const, version_id: `v${n}`, branch: "main" });

describe("EventBus", () => {
  it("numbers events, delivers them and survives a failing subscriber", () => {
    const bus = new EventBus();
    const got: number[] = [];
    bus.subscribe(() => { throw new Error("broken stream"); });
    const off = bus.subscribe((e) => got.push(e.id));
    bus.publish(version(1));
    off();
    bus.publish(version(2));
    expect(got).toEqual([1]);
    expect(bus.size).toBe(1);
  });

  it("resumes from the ring, and says null when events were dropped or the id is unknown", () => {
    const bus = new EventBus();
    for (let i = 0; i < 1005; i++) bus.publish(version(i));
    expect(bus.since(1004)!.map((e) => e.id)).toEqual([1005]);
    expect(bus.since(1005)).toEqual([]);
    expect(bus.since(5)).not.toBeNull();
    expect(bus.since(3)).toBeNull();
    expect(bus.since(5000)).toBeNull();
  });
});

describe("operationEvent", () => {
  const object = (name: string): ObjectRecord => ({
    type: "object", id: `object/godot/Main/${name}`, app: "godot", scene: "Main", name, kind: "empty", primitive: null, mesh: null, parent: null,
    material: null, light: null, keyframes: [], modifiers: [], position: { x: 0, y: 0, z: 0 }, rotation: { x: 0, y: 0, z: 0 }, scale: { x: 1, y: 1, z: 1 },
  });
  const op = (changes: Change[], kind = "tool") => ({ seq: 1, branch: "main", kind, tool: "t", app: "godot" as const, transactionId: null, changes });

  it("lists the scenes touched and carries small changes' records", () => {
    const e = operationEvent(op([{ id: "object/godot/Main/A", before: null, after: object("A") }]), "mcp");
    expect(e).toMatchObject({ scenes: ["godot/Main"], source: "mcp", changes: 1, records: [{ id: "object/godot/Main/A" }] });
    expect(operationEvent(op([], "live"), "http").source).toBe("live");
  });

  it("leaves records out of big changes and of meshes", () => {
    const many = Array.from({ length: MAX_RECORDS + 1 }, (_, i) => ({ id: `object/godot/Main/O${i}`, before: null, after: object(`O${i}`) }));
    expect(operationEvent(op(many), "http").records).toBeUndefined();
    const mesh = { id: "mesh/abc", before: null, after: { type: "mesh" as const, id: "mesh/abc", positions: "", normals: "", indices: "" } };
    expect(operationEvent(op([mesh]), "http").records).toBeUndefined();
  });
});
