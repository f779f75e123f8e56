/**
 * A small client for a running Kiln's `/tools` endpoints, for `kiln --run-recipe --server`.
 * It keeps one connection alive across steps and closes it explicitly: fetch's global pool
 * would hold the process open for the server's keep-alive time after the run has finished.
 */
import http from "node:http";
import https from "node:https";
import type { InvokeTool } from "../recipes";
import { CLIENT_HEADER } from "../events/source";

/** Why a service cannot take a run: nothing listens (`unreachable`), or it will not (`refused`). */
export interface ProbeProblem {
  problem: "unreachable" | "refused";
  message: string;
}

/** A client for the service at `base` (an origin such as http://127.0.0.1:8080). */
export function toolClient(base: string, token = process.env.KILN_TOKEN) {
  const url = new URL(base);
  const transport = url.protocol === "https:" ? https : http;
  const agent = new transport.Agent({ keepAlive: true, maxSockets: 1 });
  // The header tells the service's event stream these calls came from the CLI.
  const auth: Record<string, string> = { [CLIENT_HEADER]: "cli", ...(token ? { authorization: `Bearer ${token}` } : {}) };

  const request = (method: "GET" | "POST", path: string, body?: unknown) =>
    new Promise<{ status: number; json: unknown }>((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers = { ...auth, ...(payload === undefined ? {} : { "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)) }) };
      const req = transport.request(new URL(path, url), { method, agent, headers }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk) => (text += chunk));
        res.on("end", () => {
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            // Not JSON: the caller reports the status.
          }
          resolve({ status: res.statusCode ?? 0, json });
        });
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(payload);
    });

  /** Calls one tool; a failure throws the service's error body {code, message, details}. */
  const invoke: InvokeTool = async (tool, params) => {
    let answer: Awaited<ReturnType<typeof request>>;
    try {
      answer = await request("POST", `/tools/${encodeURIComponent(tool)}`, params);
    } catch (error) {
      throw { code: "SERVICE_UNREACHABLE", message: `${base} did not answer: ${(error as Error).message}` };
    }
    const body = answer.json as { ok?: boolean; result?: unknown; error?: unknown } | null;
    if (body?.ok === true) return body.result;
    if (body?.ok === false && body.error) throw body.error;
    throw { code: "BAD_RESPONSE", message: `${base} answered ${answer.status} without a Kiln result` };
  };

  /** Checks that the service answers and accepts our token, before any step changes anything. */
  const probe = async (): Promise<ProbeProblem | null> => {
    try {
      const { status } = await request("GET", "/tools");
      if (status === 401) return { problem: "refused", message: `${base} needs a token: set KILN_TOKEN to the service's token` };
      if (status !== 200) return { problem: "refused", message: `${base} answered GET /tools with ${status}; is it a Kiln service?` };
      return null;
    } catch (error) {
      return { problem: "unreachable", message: `cannot reach ${base}: ${(error as Error).message}` };
    }
  };

  return { invoke, probe, close: () => agent.destroy() };
}
