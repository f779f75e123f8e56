/** Shared helpers for the benchmarks: timing, percentiles, a keep-alive HTTP caller. */
import { Agent, request } from "node:http";

export function percentile(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
}

export const median = (xs: number[]) => percentile(xs, 50);

/** Formats milliseconds with two decimals. */
export const ms = (x: number) => `${x.toFixed(2)} ms`;

/** A minimal keep-alive JSON caller: the load generator should cost little next to the server. */
export function caller(baseUrl: string, maxSockets = 1) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const url = new URL(baseUrl);
  return (tool: string, params: unknown = {}): Promise<{ status: number; body: any }> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify(params);
      const req = request({ host: url.hostname, port: url.port, path: `/tools/${tool}`, method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } }, (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (data += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }));
      });
      req.on("error", reject);
      req.end(body);
    });
}

/** Times `fn` n times and returns the durations in ms. */
export async function timeEach(n: number, fn: (i: number) => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn(i);
    out.push(performance.now() - t);
  }
  return out;
}
