"use client";
/**
 * Before/after renders of one app's scene from the same camera (the "to" side's), drawn by
 * Kiln's embedded renderer (/versions/<id>/render), shown as 2-up, swipe or onion skin across
 * the width they are given, with the regions that differ boxed in red and, beside them, a heat
 * map of every changed pixel (mark-changes.ts: a lighting change shows there, not as one box).
 */
import { useEffect, useRef, useState } from "react";
import { authHeaders } from "@/app/recipes/_lib/trpc";
import { compareImages, heatImage, type Comparison } from "./mark-changes";

/** Size the renders are drawn at, and (half of it) the size they are compared at. */
const W = 960, H = 540, CW = 480, CH = 270;

export const DIFF_MODES = { "2-up": "2-up", swipe: "Swipe", onion: "Onion skin", heat: "Changes" } as const;
export type DiffMode = keyof typeof DIFF_MODES;

async function loadImage(url: string): Promise<ImageBitmap> {
  const r = await fetch(url, { headers: authHeaders() });
  if (!r.ok) {
    const body = await r.json().catch(() => null);
    throw new Error(body?.error?.message ?? `render failed (${r.status})`);
  }
  return createImageBitmap(await r.blob());
}

const pixelsOf = (img: ImageBitmap) => {
  const c = new OffscreenCanvas(CW, CH).getContext("2d")!;
  c.drawImage(img, 0, 0, CW, CH);
  return c.getImageData(0, 0, CW, CH).data;
};

/** A side that has no such scene: a note instead of a render. */
function drawAbsent(canvas: HTMLCanvasElement, text: string) {
  const ctx = canvas.getContext("2d")!;
  ctx.fillStyle = "#101216";
  ctx.fillRect(0, 0, W, H);
  ctx.fillStyle = "#9aa1ad";
  ctx.font = "28px system-ui, sans-serif";
  ctx.textAlign = "center";
  ctx.fillText(text, W / 2, H / 2);
}

/** The red boxes over an image, in the comparison's coordinates, scaled with it. */
function Boxes({ c, shown }: { c?: Comparison; shown: boolean }) {
  if (!c || !shown || !c.rects.length) return null;
  return (
    <svg className="diff-boxes" viewBox={`0 0 ${CW} ${CH}`} preserveAspectRatio="none" aria-hidden="true">
      {c.rects.map((r, i) => <rect key={i} x={r.x - 1} y={r.y - 1} width={r.w + 2} height={r.h + 2} vectorEffect="non-scaling-stroke" />)}
    </svg>
  );
}

type Loaded = { key: string; a?: ImageBitmap; b?: ImageBitmap; comparison?: Comparison; heat?: ImageData } | { key: string; error: string };

/**
 * `named`: say which scene in the caption (the diff draws several); `absent`: the side on which
 * the scene does not exist (added or removed between the two), drawn as a note instead of asking
 * for a render that cannot be; `testId` names the figure for tests; `stamp` changes when the
 * working state may have (only a side that is "working" renders again).
 */
export function DiffRenders({ from, to, app, scene, named = false, absent, testId, stamp, initialMode = "2-up" }: {
  from: string; to: string; app: string; scene?: string; named?: boolean; absent?: "before" | "after"; testId: string; stamp: number; initialMode?: DiffMode;
}) {
  const before = useRef<HTMLCanvasElement>(null);
  const after = useRef<HTMLCanvasElement>(null);
  const heat = useRef<HTMLCanvasElement>(null);
  const [mode, setMode] = useState<DiffMode>(initialMode);
  const [split, setSplit] = useState(50);
  const [boxes, setBoxes] = useState(true);
  const [state, setState] = useState<Loaded>();
  // Versions never change, so only a side that is the working state renders again on news; a
  // render under way is not cut off by the next change (one more follows when it ends), so the
  // pictures keep up with a busy scene instead of starting over for ever.
  const live = from === "working" || to === "working" ? stamp : 0;
  const busy = useRef(false);
  const again = useRef(false);
  const [round, setRound] = useState(0);
  const key = `${from}:${to}:${app}:${scene ?? ""}`;
  useEffect(() => {
    if (busy.current) return void (again.current = true);
    busy.current = true;
    const q = (id: string) => `/versions/${id}/render?app=${app}${scene ? `&scene=${encodeURIComponent(scene)}` : ""}&camera=${to}&width=${W}&height=${H}`;
    Promise.all([absent === "before" ? undefined : loadImage(q(from)), absent === "after" ? undefined : loadImage(q(to))])
      .then(([a, b]) => {
        if (!a || !b) return setState({ key, a, b });
        const comparison = compareImages(pixelsOf(a), pixelsOf(b), CW, CH);
        setState({ key, a, b, comparison, heat: new ImageData(heatImage(pixelsOf(b), comparison), CW, CH) });
      })
      .catch((e: Error) => setState({ key, error: e.message }))
      .finally(() => {
        busy.current = false;
        if (again.current) {
          again.current = false;
          setRound((n) => n + 1);
        }
      });
  }, [from, to, app, scene, absent, live, round, key]);
  // A picture of another pair than the one asked for is not shown as its answer.
  const current = state?.key === key ? state : undefined;
  const shown = current && !("error" in current) ? current : undefined;
  // Draw into whichever canvases the mode shows (they mount with it).
  useEffect(() => {
    if (!shown) return;
    const paint = (canvas: HTMLCanvasElement | null, img: ImageBitmap | undefined, side: string) => {
      if (!canvas) return;
      if (img) canvas.getContext("2d")!.drawImage(img, 0, 0, W, H);
      else drawAbsent(canvas, `no ${scene ?? "scene"} at ${side}`);
    };
    paint(before.current, shown.a, from);
    paint(after.current, shown.b, to);
    if (heat.current && shown.heat) heat.current.getContext("2d")!.putImageData(shown.heat, 0, 0);
  }, [shown, mode, from, to, scene]);

  const c = shown?.comparison;
  const frame = (ref: React.RefObject<HTMLCanvasElement | null>, label: string, testid: string, extra?: React.CSSProperties) => (
    <canvas ref={ref} width={W} height={H} aria-label={label} data-testid={testid} style={extra} />
  );
  const beforeLabel = `${app} scene at ${from}`, afterLabel = `${app} scene at ${to}`;
  return (
    <figure className="diff-renders" data-testid={testId} data-mode={mode} data-changed-pixels={c?.pixels} data-marks={c?.rects.length}
      data-lighting={c?.lighting ? c.lighting.explained.toFixed(3) : undefined}>
      <div className="diff-toolbar" role="group" aria-label={`How to compare the ${app} renders`}>
        {(Object.keys(DIFF_MODES) as DiffMode[]).map((m) => (
          <button key={m} type="button" aria-pressed={mode === m} onClick={() => setMode(m)} data-testid={`mode-${m}`}>{DIFF_MODES[m]}</button>
        ))}
        <label className="diff-check"><input type="checkbox" checked={boxes} onChange={(e) => setBoxes(e.target.checked)} /> Boxes</label>
      </div>
      {mode === "2-up" && (
        <div className="diff-pair">
          <div><div className="muted small">before · {from}</div><div className="diff-frame">{frame(before, beforeLabel, "render-before")}<Boxes c={c} shown={boxes} /></div></div>
          <div><div className="muted small">after · {to}</div><div className="diff-frame">{frame(after, afterLabel, "render-after")}<Boxes c={c} shown={boxes} /></div></div>
        </div>
      )}
      {(mode === "swipe" || mode === "onion") && (
        <>
          <div className="diff-labels muted small"><span>before · {from}</span><span>after · {to}</span></div>
          <div className={`diff-frame diff-stage is-${mode}`} data-testid="diff-stage"
            onPointerDown={(e) => {
              if (mode !== "swipe") return;
              e.currentTarget.setPointerCapture(e.pointerId);
              const box = e.currentTarget.getBoundingClientRect();
              setSplit(Math.round(((e.clientX - box.left) / box.width) * 100));
            }}
            onPointerMove={(e) => {
              if (mode !== "swipe" || !e.currentTarget.hasPointerCapture(e.pointerId)) return;
              const box = e.currentTarget.getBoundingClientRect();
              setSplit(Math.max(0, Math.min(100, Math.round(((e.clientX - box.left) / box.width) * 100))));
            }}>
            {/* Swipe: before over after, cut at the divider; onion skin: after over before, faded. */}
            {mode === "swipe" ? frame(after, afterLabel, "render-after") : frame(before, beforeLabel, "render-before")}
            {mode === "swipe"
              ? frame(before, beforeLabel, "render-before", { clipPath: `inset(0 ${100 - split}% 0 0)` })
              : frame(after, afterLabel, "render-after", { opacity: split / 100 })}
            {mode === "swipe" && <div className="diff-divider" style={{ left: `${split}%` }} aria-hidden="true" />}
            <Boxes c={c} shown={boxes} />
          </div>
          <label className="diff-slider">
            <span className="muted small">{mode === "swipe" ? `Before ← ${split}% → after` : `After shown at ${split}% over before`}</span>
            <input type="range" min={0} max={100} value={split} onChange={(e) => setSplit(Number(e.target.value))}
              aria-label={mode === "swipe" ? "Swipe: how much of the before image shows, from the left" : "Onion skin: opacity of the after image"} data-testid="diff-slider" />
          </label>
        </>
      )}
      <div className={mode === "heat" ? "diff-heat is-wide" : "diff-heat"}>
        <div className="diff-frame">
          <canvas ref={heat} width={CW} height={CH} aria-label={`Changed pixels of the ${app} scene, ${from} to ${to}`} data-testid="render-heat" />
          <Boxes c={c} shown={boxes} />
        </div>
        <figcaption className="muted small">
          {named && scene ? <strong>{scene}: </strong> : null}
          <Caption state={current} app={app} from={from} to={to} absent={absent} />
          {c && c.pixels > 0 && (
            <span className="diff-legend"> Heat map: <span className="swatch warm" /> changed{c.lighting && <>, <span className="swatch cool" /> changed as the lighting did</>}; brighter is more.</span>
          )}
        </figcaption>
      </div>
    </figure>
  );
}

function Caption({ state, app, from, to, absent }: { state?: Loaded; app: string; from: string; to: string; absent?: "before" | "after" }) {
  if (!state) return <>rendering…</>;
  if ("error" in state) return <span className="field-error">{state.error}</span>;
  const c = state.comparison;
  if (!c) return <>{app}: the scene {absent === "before" ? `is new at ${to}` : `is gone at ${to}`}</>;
  if (!c.pixels) return <>{app}: no visible difference from {to}&apos;s camera</>;
  const regions = `${c.rects.length} changed region${c.rects.length === 1 ? "" : "s"} boxed in red`;
  const percent = (x: number) => `${Math.round(x * 100)}%`;
  if (c.lighting)
    return <>{app}: the lighting or colours changed across {percent(c.lighting.explained)} of the image; {c.rects.length ? `${regions}: what changed beyond that` : "nothing else changed visibly"} ({c.pixels} pixels changed in all, seen from {to}&apos;s camera).</>;
  return <>{app}: {regions} ({c.pixels} pixels), seen from {to}&apos;s camera.</>;
}
