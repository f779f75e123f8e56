"use client";
/** A diff of two versions (or a version and the working state): changed objects and fields, then renders. */
import { useStudioApi, type Diff } from "@/app/_lib/studio-api";
import { useLoad } from "@/app/_lib/use-load";
import { DiffRenders } from "./diff-renders";

type Kinds = Diff["apps"][string]["objects"];
type Changed = { name: string; scene?: string; fields: Record<string, { old: unknown; new: unknown }> };

const show = (v: unknown) => (v === null || v === undefined ? "—" : typeof v === "object" ? JSON.stringify(v) : String(v));
const nameOf = (x: unknown) => String((x as { name?: unknown })?.name ?? "?");

function KindRows({ label, kinds }: { label: string; kinds: Kinds }) {
  const changed = kinds.changed as Changed[];
  return (
    <>
      {kinds.added.map((x) => <tr key={`a-${label}-${nameOf(x)}`} className="diff-added"><td>{label}</td><td><strong>{nameOf(x)}</strong></td><td colSpan={3}>added</td></tr>)}
      {kinds.removed.map((x) => <tr key={`r-${label}-${nameOf(x)}`} className="diff-removed"><td>{label}</td><td><strong>{nameOf(x)}</strong></td><td colSpan={3}>removed</td></tr>)}
      {changed.flatMap((c) => Object.entries(c.fields).map(([field, v], i) => (
        <tr key={`c-${label}-${c.name}-${field}`} data-testid={`diff-${c.name}-${field}`}>
          <td>{i === 0 ? label : ""}</td><td>{i === 0 ? <strong>{c.name}</strong> : ""}</td>
          <td><code>{field}</code></td><td className="mono diff-old">{show(v.old)}</td><td className="mono diff-new">{show(v.new)}</td>
        </tr>
      )))}
    </>
  );
}

/** The scene of a changed object in an app's part of the diff, for the render. */
function sceneOf(part: Diff["apps"][string]): string | undefined {
  const all = [...part.objects.changed, ...part.objects.added, ...part.objects.removed] as { scene?: string }[];
  return all.find((x) => x.scene)?.scene;
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
      {apps.map(([app, part]) => (
        <section key={app} className="diff-app">
          <h3>{app}{activeScene(part)}</h3>
          <table className="data-table" data-testid={`diff-table-${app}`}>
            <thead><tr><th>Kind</th><th>Name</th><th>Field</th><th>Before</th><th>After</th></tr></thead>
            <tbody>
              <KindRows label="object" kinds={part.objects} />
              <KindRows label="material" kinds={part.materials} />
              <KindRows label="scene" kinds={part.scenes} />
            </tbody>
          </table>
          <DiffRenders from={from} to={to} app={app} scene={sceneOf(part)} stamp={stamp} />
        </section>
      ))}
    </div>
  );
}
