/**
 * `/docs/api`: the API reference for people, rendered from the same catalogue as `GET /tools` and
 * `/openapi.json`, so it lists exactly the tools the service answers. No external assets.
 */
import { headers } from "next/headers";
import { catalogue, type CatalogueEntry } from "@/server/api/catalogue";
import { ERROR_RESPONSES } from "@/server/api/openapi";
import { checkOrigin } from "@/server/api/security";
import { getKiln } from "@/server/runtime";
import { TOOL_GROUPS } from "@/server/tools/define-tool";

export const dynamic = "force-dynamic";
export const metadata = { title: "Kiln API reference" };

type Schema = Record<string, any>;

/** A short type label for a JSON Schema: `"a" | "b"`, `integer 1..500`, `{x, y, z}`, `string[]`. */
function typeLabel(s: Schema): string {
  if (s.enum) return s.enum.map((v: unknown) => JSON.stringify(v)).join(" | ");
  if ("const" in s) return JSON.stringify(s.const);
  const union = s.anyOf ?? s.oneOf;
  if (union) return union.map(typeLabel).join(" | ");
  if (s.type === "array") return `${typeLabel(s.items ?? {})}[]`;
  if (s.type === "object" && s.properties) {
    const required = new Set(s.required ?? []);
    return `{${Object.keys(s.properties).map((k) => (required.has(k) ? k : `${k}?`)).join(", ")}}`;
  }
  const type = ([] as string[]).concat(s.type ?? "any").join(" | ");
  const range = s.minimum !== undefined || s.maximum !== undefined ? ` ${s.minimum ?? ""}..${s.maximum !== undefined && s.maximum < 1e15 ? s.maximum : ""}` : "";
  return type + range;
}

function Params({ tool }: { tool: CatalogueEntry }) {
  const props = (tool.input.properties ?? {}) as Record<string, Schema>;
  const required = new Set((tool.input.required ?? []) as string[]);
  if (!Object.keys(props).length) return <div className="params">No parameters.</div>;
  return (
    <table className="params" style={{ borderCollapse: "collapse", marginTop: 6 }}>
      <tbody>
        {Object.entries(props).map(([name, s]) => (
          <tr key={name}>
            <td style={{ padding: "1px 12px 1px 0" }}><code>{name}</code>{required.has(name) ? "" : "?"}</td>
            <td style={{ padding: "1px 12px 1px 0" }}><code>{typeLabel(s)}</code></td>
            <td>{[s.description, s.default !== undefined ? `Default ${JSON.stringify(s.default)}.` : ""].filter(Boolean).join(" ")}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Tool({ tool }: { tool: CatalogueEntry }) {
  const hints = [tool.annotations.readOnly ? "read-only" : "changes state", tool.annotations.destructive && "destructive", tool.annotations.idempotent && "idempotent"].filter(Boolean);
  return (
    <div className="tool" id={tool.name}>
      <div className="tool-head">
        <span className="tool-name">{tool.name}</span>
        {tool.methods.map((m) => <span className="method" key={m}>{m}</span>)}
        <span className="muted">{hints.join(", ")}</span>
      </div>
      <div>{tool.description}</div>
      <Params tool={tool} />
      <details className="params">
        <summary>Result: <code>{typeLabel(tool.output)}</code></summary>
        <pre>{JSON.stringify(tool.output, null, 2)}</pre>
      </details>
    </div>
  );
}

export default async function ApiReference() {
  const kiln = await getKiln();
  const refused = checkOrigin(new Request("http://kiln/", { headers: await headers() }), kiln.config);
  if (refused) return <main className="page"><p>{refused.error.message}</p></main>;
  const tools = catalogue();
  return (
    <main className="page">
      <div className="brand"><h1>Kiln API</h1><span className="tag">{tools.length} tools · <a href="/openapi.json">OpenAPI 3.1</a> · <a href="/tools">GET /tools</a> · MCP at <code>/mcp</code></span></div>
      <p>
        Call a tool at <code>/tools/&lt;name&gt;</code>. Read tools answer GET (parameters in the query string) and POST
        (a JSON body); the others POST only (<code>delete_version</code> also DELETE). Success is <code>{"{"}"ok": true, "result": ...{"}"}</code>;
        failure is <code>{"{"}"ok": false, "error": {"{"}"code", "message", "details"{"}"}{"}"}</code>. Numbers may be sent as numeric strings;
        unknown parameters are refused. With <code>KILN_TOKEN</code> set, send <code>Authorization: Bearer &lt;token&gt;</code>.
      </p>
      <table className="params" style={{ borderCollapse: "collapse" }}>
        <tbody>
          {Object.entries(ERROR_RESPONSES).map(([status, [, text]]) => (
            <tr key={status}><td style={{ padding: "1px 12px 1px 0" }}><code>{status}</code></td><td>{text}</td></tr>
          ))}
        </tbody>
      </table>
      {TOOL_GROUPS.filter((g) => tools.some((t) => t.group === g)).map((group) => (
        <section key={group}>
          <h2>{group}</h2>
          {tools.filter((t) => t.group === group).map((tool) => <Tool tool={tool} key={tool.name} />)}
        </section>
      ))}
    </main>
  );
}
