"use client";
/**
 * The selected object's transform, material, parent, keyframes and modifiers. Editing a field
 * calls the tool (set_transform, set_material, set_keyframe, add_modifier) when it is committed
 * (Enter or leaving the field); the view then changes through GET /events like any other change.
 */
import { useEffect, useRef, useState } from "react";
import type { Vec3 } from "@/server/scene/types";
import type { SceneApi } from "../_lib/scene-api";
import type { ObjectView, SceneModel } from "../_lib/scene-model";

type Channel = "position" | "rotation" | "scale";
/** Calls a tool for an edit; resolves to false when the tool refused it. */
type Run = (what: string, call: () => Promise<unknown>) => Promise<boolean>;

interface Props {
  object: ObjectView | null; model: SceneModel | null; api: SceneApi; run: Run;
  /** Someone else's lock on the object, said in words (Kiln refuses changes to it). */
  lock?: string | null;
}

/** A number input; `onCommit` may resolve to false (the tool refused): the field then shows `value` again. */
function NumberField({ label, value, onCommit }: { label: string; value: number; onCommit: (v: number) => void | Promise<boolean> }) {
  const [text, setText] = useState(String(value));
  // The value now (a refusal answers later, perhaps after another object was selected) and the text
  // last sent, so Enter then leaving the field sends it once.
  const latest = useRef(value);
  latest.current = value;
  const sent = useRef<string | null>(null);
  useEffect(() => {
    setText(String(value));
    sent.current = null;
  }, [value]);
  const commit = () => {
    const v = Number(text);
    if (text.trim() === "" || !Number.isFinite(v)) return setText(String(value));
    if (v === value || text === sent.current) return;
    sent.current = text;
    void Promise.resolve(onCommit(v)).then((ok) => {
      if (ok !== false) return;
      sent.current = null;
      setText(String(latest.current));
    });
  };
  return (
    <label className="num">
      <span>{label}</span>
      <input
        type="text" inputMode="decimal" value={text} aria-label={label}
        onChange={(e) => setText(e.target.value)} onBlur={commit}
        onKeyDown={(e) => { if (e.key === "Enter") commit(); if (e.key === "Escape") setText(String(value)); }}
      />
    </label>
  );
}

function VectorRow({ channel, value, onCommit }: { channel: Channel; value: Vec3; onCommit: (v: Vec3) => Promise<boolean> }) {
  return (
    <fieldset className="vec">
      <legend>{channel}</legend>
      {(["x", "y", "z"] as const).map((axis) => (
        <NumberField key={axis} label={`${channel} ${axis}`} value={value[axis]} onCommit={(v) => onCommit({ ...value, [axis]: v })} />
      ))}
    </fieldset>
  );
}

export function Inspector({ object: o, model, api, run, lock }: Props) {
  const [keyTime, setKeyTime] = useState("0");
  if (!o || !model)
    return <aside className="studio-inspector" aria-label="Inspector"><h2>Inspector</h2><p className="muted">Select an object in the tree or the view.</p></aside>;
  const setChannel = (channel: Channel) => (v: Vec3) => run("Move", () => api.setTransform(o.name, { [channel]: v }));
  return (
    <aside className="studio-inspector" aria-label="Inspector">
      <h2>{o.name}</h2>
      {lock && <p className="lock-notice" role="status">{lock}</p>}
      <dl className="kv">
        <dt>Type</dt><dd>{o.type} ({o.kind})</dd>
        <dt>Parent</dt><dd>{o.parent ?? <span className="muted">none</span>}</dd>
      </dl>
      {(["position", "rotation", "scale"] as const).map((c) => <VectorRow key={c} channel={c} value={o[c]} onCommit={setChannel(c)} />)}
      {o.kind === "mesh" && (
        <label className="field">
          Material{" "}
          <select value={o.material ?? ""} onChange={(e) => e.target.value && run("Material", () => api.setMaterial(o.name, e.target.value))}>
            <option value="" disabled>none</option>
            {model.materials.map((m) => <option key={m.name}>{m.name}</option>)}
          </select>
        </label>
      )}
      {o.light && (
        <dl className="kv">
          <dt>Light</dt><dd>{o.light.type}, intensity {o.light.intensity}</dd>
        </dl>
      )}
      <h3>Keyframes</h3>
      {o.keyframes?.length ? (
        <ul className="plain">{o.keyframes.map((k) => <li key={k.time}>{k.time} s: {Object.keys(k).filter((x) => x !== "time").join(", ")}</li>)}</ul>
      ) : <p className="muted">none</p>}
      <div className="row">
        <NumberField label="Key time (s)" value={Number(keyTime)} onCommit={(v) => setKeyTime(String(v))} />
        <button type="button" onClick={() => run("Keyframe", () => api.setKeyframe(o.name, Number(keyTime) || 0))}>Key transform</button>
      </div>
      <h3>Modifiers</h3>
      {o.modifiers?.length ? (
        <ul className="plain">{o.modifiers.map((m, i) => <li key={i}>{String(m.type)} {m.axis ? `(${String(m.axis)})` : m.count ? `×${String(m.count)}` : ""}</li>)}</ul>
      ) : <p className="muted">none</p>}
      {model.app === "blender" && o.kind === "mesh" && (
        <div className="row">
          <button type="button" onClick={() => run("Modifier", () => api.addModifier(o.name, { type: "mirror", axis: "x" }))}>Add mirror</button>
          <button type="button" onClick={() => run("Modifier", () => api.addModifier(o.name, { type: "array", count: 3 }))}>Add array ×3</button>
        </div>
      )}
    </aside>
  );
}
