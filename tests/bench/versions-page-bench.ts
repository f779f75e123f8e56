/**
 * /versions with 5,000 versions (issue 17, "Performance": opens <= 1 s), in headless Chromium
 * against the production build. A project of 5,000 versions over 4 branches is made over HTTP;
 * then the page is opened BENCH_OPENS times (first with an empty cache), each timed from
 * navigation start until the graph shows its newest versions, the branch table and the diff of the
 * head with the working state (the page's first full picture; the renders come after).
 * Run: KILN_NEXT_DIST=.next-<name> npx tsx tests/bench/versions-page-bench.ts
 */
import { chromium } from "@playwright/test";
import { CHROMIUM_ARGS } from "../../playwright.config";
import { startServer } from "../helpers/server";
import { caller, median, ms } from "./bench-utils";

const VERSIONS = Number(process.env.BENCH_VERSIONS ?? 5_000);
const OPENS = Number(process.env.BENCH_OPENS ?? 5);

const kiln = await startServer();
const call = caller(kiln.url);
const browser = await chromium.launch({ executablePath: process.env.KILN_CHROMIUM ?? "/usr/bin/chromium", args: CHROMIUM_ARGS });
try {
  console.log(`saving ${VERSIONS} versions...`);
  const started = performance.now();
  for (let i = 0; i < VERSIONS; i++) {
    if (i % 50 === 0) await call("create_gameobject", { name: `Obj${i}`, type: "Cube", position: { x: i % 40, y: 0, z: Math.floor(i / 40) } });
    const r = await call("save_version", { name: `version ${i}` });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    // Three more branches, forked along the way and switched to, so the graph has lanes.
    if (i > 0 && i % Math.floor(VERSIONS / 4) === 0) {
      await call("create_branch", { name: `branch-${i}` });
      await call("switch_branch", { name: `branch-${i}` });
    }
  }
  await call("set_transform", { target: "Obj0", position: { x: 5, y: 1, z: 0 } }); // unsaved changes
  console.log(`made in ${(performance.now() - started) / 1000 | 0} s`);

  // What the page's server render asks for, timed on its own.
  for (const [tool, params] of [["list_versions", { limit: 100 }], ["list_branches", {}], ["diff_versions", { from: `v${String(VERSIONS).padStart(3, "0")}`, to: "working" }]] as const) {
    const t: number[] = [];
    for (let i = 0; i < 5; i++) {
      const s = performance.now();
      await call(tool, params);
      t.push(performance.now() - s);
    }
    console.log(`${tool}: median ${ms(median(t))}`);
  }
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const times: number[] = [];
  for (let n = 0; n < OPENS; n++) {
    const page = await context.newPage();
    await page.goto(`${kiln.url}/versions`, { waitUntil: "commit" });
    // Timed in the page (each frame checks), so Playwright's own round trips do not count.
    const all = await page.evaluate(`new Promise((resolve) => {
      const ready = () => document.querySelector('[data-testid="version-v${String(VERSIONS).padStart(3, "0")}"]') && document.querySelector('[data-testid="unsaved"]')
        && document.querySelector('[data-testid="branches"]')?.textContent.includes("branch-") && document.querySelector('[data-testid="diff"]');
      const check = () => (ready() ? resolve(performance.now()) : requestAnimationFrame(check));
      check();
    })`) as number;
    if (process.env.BENCH_VERBOSE) {
      const nav = await page.evaluate(() => JSON.stringify(performance.getEntriesByType("navigation").map((e) => { const t = e as PerformanceNavigationTiming; return { resp: Math.round(t.responseStart), end: Math.round(t.responseEnd), dcl: Math.round(t.domContentLoadedEventEnd) }; })));
      console.log(`open ${n}: ${ms(all)} ${nav}`);
    }
    times.push(all);
    const rows = await page.locator(".graph-row").count();
    if (n === 0) console.log(`graph rows shown: ${rows}; header: ${await page.locator(".page-head .muted").textContent()}`);
    await page.close();
  }
  console.log(`/versions with ${VERSIONS} versions, first full picture: cold ${ms(times[0])}, warm median ${ms(median(times.slice(1)))} (target <= 1000 ms)`);
} finally {
  await browser.close();
  await kiln.stop();
}
