"use client";
/** A diff of two versions (or a version and the working state): changed objects and fields, then renders. */
import { useStudioApi, type Diff } from "@/app/_lib/studio-api";
import { useLoad } from "@/app/_lib/use-load";
import { DiffRenders } from "./diff-renders";

type Kinds = Diff["apps"][string]["objects"];
type Changed = { name: string; scene?: string; fields: Record<string, { old: unknown; new: unknown }> };

/** A field's value in a cell: keyframes as their times (the whole list is in the cell's title), other objects as JSON. */
const show = (v: unknown) => {
  if (v === null || v === undefined) return "—";
  if (Array.isArray(v) && v.length > 0 && v.every((k) => typeof (k as { time?: unknown })?.time === "number"))
    return `${v.length} key${v.length === 1 ? "" : "s"} at ${v.map((k) => (k as { time: number }).time).join(", ")} s`;
  return typeof v === "object" ? JSON.stringify(v) : String(v);
};
const detail = (v: unknown) => (v !== null && typeof v === "object" ? JSON.stringify(v, null, 1) : undefined);
const nameOf = (x: unknown) => String((x as { name?: unknown })?.name ?? "?");

/** An object's name, after its scene's when the app's part of the diff spans several scenes. */
function Name({ x, scenes }: { x: unknown; scenes: boolean }) {
  const scene = (x as { scene?: unknown })?.scene;
  return <>{scenes && typeof scene === "string" ? <span className="muted">{scene} / </span> : null}<strong>{nameOf(x)}</strong></>;
}

function KindRows({ label, kinds, scenes = false }: { label: string; kinds: Kinds; scenes?: boolean }) {
  const changed = kinds.changed as Changed[];
  const key = (x: unknown) => `${label}-${String((x as { scene?: unknown })?.scene ?? "")}-${nameOf(x)}`;
  return (
    <>
      {kinds.added.map((x) => <tr key={`a-${key(x)}`} className="diff-added"><td>{label}</td><td><Name x={x} scenes={scenes} /></td><td colSpan={3}>added</td></tr>)}
      {kinds.removed.map((x) => <tr key={`r-${key(x)}`} className="diff-removed"><td>{label}</td><td><Name x={x} scenes={scenes} /></td><td colSpan={3}>removed</td></tr>)}
      {changed.flatMap((c) => Object.entries(c.fields).map(([field, v], i) => (
        <tr key={`c-${key(c)}-${field}`} data-testid={`diff-${c.name}-${field}`}>
          <td>{i === 0 ? label : ""}</td><td>{i === 0 ? <Name x={c} scenes={scenes} /> : ""}</td>
          <td><code>{field}</code></td><td className="mono diff-old" title={detail(v.old)}>{show(v.old)}</td><td className="mono diff-new" title={detail(v.new)}>{show(v.new)}</td>
        </tr>
      )))}
    </>
  );
}

/** Scenes drawn per app at most: each is two renders. */
const MAX_RENDERED_SCENES = 3;

/** The scenes whose objects changed in an app's part of the diff, in the order the diff lists them. */
function scenesOf(part: Diff["apps"][string]): string[] {
  const all = [...part.objects.added, ...part.objects.removed, ...part.objects.changed] as { scene?: unknown }[];
  return [...new Set(all.flatMap((x) => (typeof x.scene === "string" ? [x.scene] : [])))];
}

/** The side of the diff on which this scene does not exist: it was added (no "before") or removed (no "after"). */
function absentSide(part: Diff["apps"][string], scene: string | undefined): "before" | "after" | undefined {
  if (scene === undefined) return undefined;
  if (part.scenes.added.some((x) => nameOf(x) === scene)) return "before";
  if (part.scenes.removed.some((x) => nameOf(x) === scene)) return "after";
  return undefined;
}

function activeScene(part: Diff["apps"][string]) {
  const a = part.active_scene as { old: unknown; new: unknown } | undefined;
  return a ? <span className="muted small"> · active scene {show(a.old)} → {show(a.new)}</span> : null;
}

export function DiffView({ from, to, stamp, initial }: { from: string; to: string; stamp: number; initial?: Diff }) {
  const api = useStudioApi();
  // Versions never change: only a diff with the working state is worth asking again on news.
  const diff = useLoad(() => api.diff(from, to), [api, from, to, from === "working" || to === "working" ? stamp : 0], initial);
  if (diff.error) return <p className="notice error" role="alert">{diff.error}</p>;
  if (!diff.data) return <p className="loading">Comparing {from} and {to}…</p>;
  const apps = Object.entries(diff.data.apps);
  return (
    <div data-testid="diff">
      <p>{diff.data.total_changes === 0 ? `No differences between ${from} and ${to}.` : `${diff.data.total_changes} changed record${diff.data.total_changes === 1 ? "" : "s"} from ${from} to ${to}.`}</p>
      {apps.map(([app, part]) => {
        const scenes = scenesOf(part);
        return (
          <section key={app} className="diff-app">
            <h3>{app}{activeScene(part)}</h3>
            <table className="data-table" data-testid={`diff-table-${app}`}>
              <thead><tr><th>Kind</th><th>{scenes.length > 1 ? "Scene / name" : "Name"}</th><th>Field</th><th>Before</th><th>After</th></tr></thead>
              <tbody>
                <KindRows label="object" kinds={part.objects} scenes={scenes.length > 1} />
                <KindRows label="material" kinds={part.materials} />
                <KindRows label="scene" kinds={part.scenes} />
              </tbody>
            </table>
            {/* One pair of renders per scene whose objects changed (the active one when none did). */}
            {(scenes.length ? scenes.slice(0, MAX_RENDERED_SCENES) : [undefined]).map((scene, i) => (
              <DiffRenders key={scene ?? ""} from={from} to={to} app={app} scene={scene} named={scenes.length > 1} absent={absentSide(part, scene)} testId={i === 0 ? `renders-${app}` : `renders-${app}-${scene}`} stamp={stamp} />
            ))}
            {scenes.length > MAX_RENDERED_SCENES && <p className="muted small">{scenes.length - MAX_RENDERED_SCENES} more changed scene(s) not drawn: {scenes.slice(MAX_RENDERED_SCENES).join(", ")}.</p>}
          </section>
        );
      })}
    </div>
  );
}
