"use client";
/**
 * A diff of two versions (or a version and the working state): per app, the changed objects,
 * materials and scenes (each changed field, or sub-field, with its two values; what was added or
 * removed with its properties), then the renders of both sides compared (diff-renders.tsx).
 */
import { useStudioApi, type Diff } from "@/app/_lib/studio-api";
import { useLoad } from "@/app/_lib/use-load";
import { fieldRows, formatValue, properties, valueDetail } from "../_lib/diff-words";
import { DiffRenders, type DiffMode } from "./diff-renders";

type Part = Diff["apps"][string];
type Kinds = Part["objects"];
type Changed = { name: string; scene?: string; fields: Record<string, { old: unknown; new: unknown }> };

const nameOf = (x: unknown) => String((x as { name?: unknown })?.name ?? "?");

/** An object's name, after its scene's when the app's part of the diff spans several scenes. */
function Name({ x, scenes }: { x: unknown; scenes: boolean }) {
  const scene = (x as { scene?: unknown })?.scene;
  return <>{scenes && typeof scene === "string" ? <span className="muted">{scene} / </span> : null}<strong>{nameOf(x)}</strong></>;
}

/** What was added or removed, with its properties (type, transform, material, light...). */
function WholeRow({ x, label, kind, scenes }: { x: unknown; label: string; kind: "added" | "removed"; scenes: boolean }) {
  const props = properties(x);
  return (
    <tr className={`diff-${kind}`} data-testid={`diff-${nameOf(x)}-${kind}`}>
      <td>{label}</td><td><Name x={x} scenes={scenes} /> <span className="diff-kind">{kind}</span></td>
      <td colSpan={3}>
        {props.length > 0 && (
          <dl className="diff-props">
            {props.map(([k, v]) => <div key={k}><dt>{k}</dt><dd className="mono">{v}</dd></div>)}
          </dl>
        )}
      </td>
    </tr>
  );
}

function KindRows({ label, kinds, scenes = false }: { label: string; kinds: Kinds; scenes?: boolean }) {
  const changed = kinds.changed as Changed[];
  const key = (x: unknown) => `${label}-${String((x as { scene?: unknown })?.scene ?? "")}-${nameOf(x)}`;
  return (
    <>
      {kinds.added.map((x) => <WholeRow key={`a-${key(x)}`} x={x} label={label} kind="added" scenes={scenes} />)}
      {kinds.removed.map((x) => <WholeRow key={`r-${key(x)}`} x={x} label={label} kind="removed" scenes={scenes} />)}
      {changed.flatMap((c) => fieldRows(c.fields).map((v, i) => (
        <tr key={`c-${key(c)}-${v.field}`} data-testid={`diff-${c.name}-${v.field}`}>
          <td>{i === 0 ? label : ""}</td><td>{i === 0 ? <Name x={c} scenes={scenes} /> : ""}</td>
          <td><code>{v.field}</code></td>
          <td className="mono diff-old" title={valueDetail(v.old)}>{formatValue(v.old)}</td>
          <td className="mono diff-new" title={valueDetail(v.new)}>{formatValue(v.new)}</td>
        </tr>
      )))}
    </>
  );
}

/** Scenes drawn per app at most: each is two renders. */
const MAX_RENDERED_SCENES = 3;

/** The scenes whose objects changed in an app's part of the diff, in the order the diff lists them. */
function scenesOf(part: Part): string[] {
  const all = [...part.objects.added, ...part.objects.removed, ...part.objects.changed] as { scene?: unknown }[];
  return [...new Set(all.flatMap((x) => (typeof x.scene === "string" ? [x.scene] : [])))];
}

/** The side of the diff on which this scene does not exist: it was added (no "before") or removed (no "after"). */
function absentSide(part: Part, scene: string | undefined): "before" | "after" | undefined {
  if (scene === undefined) return undefined;
  if (part.scenes.added.some((x) => nameOf(x) === scene)) return "before";
  if (part.scenes.removed.some((x) => nameOf(x) === scene)) return "after";
  return undefined;
}

function activeScene(part: Part) {
  const a = part.active_scene as { old: unknown; new: unknown } | undefined;
  return a ? <span className="muted small"> · active scene {formatValue(a.old)} → {formatValue(a.new)}</span> : null;
}

/** One app's part: the table, then one pair of renders per scene whose objects changed (the active one when none did). */
export function AppDiff({ app, part, from, to, stamp, heading = "h3", mode }: { app: string; part: Part; from: string; to: string; stamp: number; heading?: "h2" | "h3"; mode?: DiffMode }) {
  const scenes = scenesOf(part);
  const H = heading;
  return (
    <section className="diff-app">
      <H>{app}{activeScene(part)}</H>
      <div className="table-scroll">
        <table className="data-table" data-testid={`diff-table-${app}`}>
          <thead><tr><th>Kind</th><th>{scenes.length > 1 ? "Scene / name" : "Name"}</th><th>Field</th><th>Before</th><th>After</th></tr></thead>
          <tbody>
            <KindRows label="object" kinds={part.objects} scenes={scenes.length > 1} />
            <KindRows label="material" kinds={part.materials} />
            <KindRows label="scene" kinds={part.scenes} />
          </tbody>
        </table>
      </div>
      {(scenes.length ? scenes.slice(0, MAX_RENDERED_SCENES) : [undefined]).map((scene, i) => (
        <DiffRenders key={scene ?? ""} from={from} to={to} app={app} scene={scene} named={scenes.length > 1} absent={absentSide(part, scene)}
          testId={i === 0 ? `renders-${app}` : `renders-${app}-${scene}`} stamp={stamp} initialMode={mode} />
      ))}
      {scenes.length > MAX_RENDERED_SCENES && <p className="muted small">{scenes.length - MAX_RENDERED_SCENES} more changed scene(s) not drawn: {scenes.slice(MAX_RENDERED_SCENES).join(", ")}.</p>}
    </section>
  );
}

/** The count line of a diff. */
export function diffSummary(diff: Diff): string {
  return diff.total_changes === 0
    ? `No differences between ${diff.from} and ${diff.to}.`
    : `${diff.total_changes} changed record${diff.total_changes === 1 ? "" : "s"} from ${diff.from} to ${diff.to}.`;
}

/** A diff loaded here (and again on news when one side is the working state). */
export function DiffView({ from, to, stamp, initial }: { from: string; to: string; stamp: number; initial?: Diff }) {
  const api = useStudioApi();
  // Versions never change: only a diff with the working state is worth asking again on news.
  const diff = useLoad(() => api.diff(from, to), [api, from, to, from === "working" || to === "working" ? stamp : 0], initial);
  if (diff.error) return <p className="notice error" role="alert">{diff.error}</p>;
  if (!diff.data) return <p className="loading">Comparing {from} and {to}…</p>;
  return (
    <div data-testid="diff">
      <p>{diffSummary(diff.data)}</p>
      {Object.entries(diff.data.apps).map(([app, part]) => <AppDiff key={app} app={app} part={part} from={from} to={to} stamp={stamp} />)}
    </div>
  );
}
