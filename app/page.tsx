/**
 * `/`: a dashboard for people: the service's status, each app's scenes, recent activity, a path for
 * newcomers (open the scene, run a sample recipe, connect an application) and the tool catalogue.
 */
import type { LiveStatus } from "@/server/bridges/live-apps";
import { headers } from "next/headers";
import { catalogue, type CatalogueEntry } from "@/server/api/catalogue";
import { checkOrigin } from "@/server/api/security";
import { getKiln } from "@/server/runtime";
import { listScenes, sceneObjects } from "@/server/scene/state";
import { APPS } from "@/server/scene/types";
import { TOOL_GROUPS } from "@/server/tools/define-tool";
import Link from "next/link";
import { LiveRefresh } from "./_components/live-refresh";

export const dynamic = "force-dynamic";

const GROUP_TITLES: Record<string, string> = {
  editor: "Editor", version_control: "Version control", transactions: "Transactions", pipeline: "Pipeline", recipes: "Recipes", teams: "Teams",
};

function paramsOf(tool: CatalogueEntry): string[] {
  const props = (tool.input.properties ?? {}) as Record<string, unknown>;
  const required = new Set((tool.input.required ?? []) as string[]);
  return Object.keys(props).map((k) => (required.has(k) ? k : `${k}?`));
}

export default async function Home() {
  const kiln = await getKiln();
  const h = await headers();
  const refused = checkOrigin(new Request("http://kiln/", { headers: h }), kiln.config);
  if (refused) return <main className="page"><p>{refused.error.message}</p></main>;
  const state = kiln.workspace.state;
  const tools = catalogue();
  const address = `http://${h.get("host") ?? `${kiln.config.host}:${kiln.config.port}`}`;
  const [versionCount, transferCount] = await Promise.all([kiln.db.version.count(), kiln.db.transfer.count()]);
  return (
    <main className="page">
      <LiveRefresh />
      <div className="brand"><h1>Kiln</h1><span className="tag">tool server for Blender, Unity and Godot scenes</span></div>
      <section className="card start-here" aria-labelledby="start-title">
        <h3 id="start-title">New here? Three steps</h3>
        <ol className="steps">
          <li><div><Link href="/scene" className="button-like primary">Open the scene</Link> <span className="muted">see what Kiln holds in 3D: the objects any client made, with an inspector to change them.</span></div></li>
          <li><div><Link href="/recipes/basic-scene-setup" className="button-like">Run a sample recipe</Link> <span className="muted">open <code>basic-scene-setup</code> in the builder and press ▶ Run; then watch it in <Link href="/versions">Versions</Link>.</span></div></li>
          <li><div><Link href="/pipeline" className="button-like">Connect an application</Link> <span className="muted">run <code>npx kiln blender</code> for a live Blender, or install the add-on (<code>npm run bridge:blender:zip</code>) and paste <code>npx kiln bridge-token</code>; AI clients connect over MCP at <code>{address}/mcp</code>. Connected apps show up under <Link href="/pipeline">Pipeline</Link>.</span></div></li>
        </ol>
      </section>
      <div className="grid">
        <section className="card">
          <h3>Service</h3>
          <dl className="kv">
            <dt>Address</dt><dd>{address}</dd>
            <dt>Database</dt><dd>{kiln.config.provider === "sqlite" ? `SQLite (${kiln.config.databaseUrl.slice(5)})` : "PostgreSQL"}</dd>
            <dt>Branch</dt><dd>{kiln.workspace.branch}</dd>
            <dt>Operations</dt><dd>{kiln.workspace.seq}</dd>
            <dt>Auth</dt><dd>{kiln.teams.enabled ? "team mode: people sign in, tokens for programs" : kiln.config.token ? "bearer token required" : "none (loopback only)"}</dd>
          </dl>
        </section>
        {APPS.map((app) => (
          <section className="card" key={app}>
            <h3>{app} <span className="muted">({describeConnection(kiln.live.status(app))})</span></h3>
            <dl className="kv">
              {listScenes(state, app).map((s) => (
                <><dt key={`${s.name}-k`}>{s.name}</dt><dd key={`${s.name}-v`}>{plural(sceneObjects(state, s).length, "object")}</dd></>
              ))}
            </dl>
          </section>
        ))}
      </div>
      <nav className="grid dash-links" aria-label="Studio pages">
        <Link className="card" href="/scene"><h3>Scene</h3><span>The scene in 3D, its object tree and an inspector.</span></Link>
        <Link className="card" href="/versions"><h3>Versions</h3><span>{versionCount} saved version{versionCount === 1 ? "" : "s"}; branches, diffs, the operation log and transactions.</span></Link>
        <Link className="card" href="/pipeline"><h3>Pipeline</h3><span>{transferCount} transfer{transferCount === 1 ? "" : "s"} between apps; start one, download its file.</span></Link>
        <Link className="card" href="/recipes"><h3>Recipes</h3><span>Build, edit, validate and run recipes in the visual builder.</span></Link>
      </nav>
      <p className="muted">Call any tool at <code>{address}/tools/&lt;name&gt;</code>; <a href="/tools">GET /tools</a> returns this catalogue as JSON with JSON Schemas.</p>
      {TOOL_GROUPS.filter((g) => tools.some((t) => t.group === g)).map((group) => (
        <section key={group}>
          <h2>{GROUP_TITLES[group]}</h2>
          {tools.filter((t) => t.group === group).map((tool) => (
            <div className="tool" key={tool.name} id={tool.name}>
              <div className="tool-head">
                <span className="tool-name">{tool.name}</span>
                {tool.methods.map((m) => <span className="method" key={m}>{m}</span>)}
                <span>{tool.description}</span>
              </div>
              <div className="params">params: {paramsOf(tool).length ? paramsOf(tool).map((p, i) => <span key={p}>{i ? ", " : ""}<code>{p}</code></span>) : "none"}</div>
            </div>
          ))}
        </section>
      ))}
    </main>
  );
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** How an app's scene is held, for people: embedded, or the live application and since when. */
function describeConnection(s: LiveStatus): string {
  if (s.connection === "live" && s.live)
    return `live: ${s.live.app_version}${s.live.file ? `, ${s.live.file}` : ", unsaved file"}, since ${new Date(s.live.since).toLocaleTimeString("en-GB")}`;
  if (s.connection === "disconnected") return `live application disconnected since ${new Date(s.disconnected_since!).toLocaleTimeString("en-GB")}`;
  return "embedded scene";
}
