"use client";
/**
 * Before/after renders of one app's scene from the same camera (the "to" side's), drawn by
 * Kiln's embedded renderer (/versions/<id>/render), with the regions that differ boxed in red.
 */
import { useEffect, useRef, useState } from "react";
import { authHeaders } from "@/app/recipes/_lib/trpc";
import { changedRegions, type Rect } from "./mark-changes";

const W = 480, H = 270;

async function loadImage(url: string): Promise<ImageBitmap> {
  const r = await fetch(url, { headers: authHeaders() });
  if (!r.ok) {
    const body = await r.json().catch(() => null);
    throw new Error(body?.error?.message ?? `render failed (${r.status})`);
  }
  return createImageBitmap(await r.blob());
}

function draw(canvas: HTMLCanvasElement, image: ImageBitmap, rects: Rect[]) {
  const ctx = canvas.getContext("2d")!;
  ctx.drawImage(image, 0, 0);
  ctx.strokeStyle = "#ff3b3b";
  ctx.lineWidth = 2;
  for (const r of rects) ctx.strokeRect(r.x - 2, r.y - 2, r.w + 4, r.h + 4);
}

/** Fills a side that has no such scene with a note saying so. */
function drawAbsent(canvas: HTMLCanvasElement, text: string) {
  const ctx = canvas.getContext("2d")!;
  ctx.fillStyle = "#101216";
  ctx.fillRect(0, 0, W, H);
  ctx.fillStyle = "#9aa1ad";
  ctx.font = "14px system-ui, sans-serif";
  ctx.textAlign = "center";
  ctx.fillText(text, W / 2, H / 2);
}

/**
 * `named`: say which scene in the caption (the diff draws several); `absent`: the side on which
 * the scene does not exist (added or removed between the two), drawn as a note instead of asking
 * for a render that cannot be; `testId` names the figure for tests.
 */
export function DiffRenders({ from, to, app, scene, named = false, absent, testId, stamp }: { from: string; to: string; app: string; scene?: string; named?: boolean; absent?: "before" | "after"; testId: string; stamp: number }) {
  const before = useRef<HTMLCanvasElement>(null);
  const after = useRef<HTMLCanvasElement>(null);
  const [state, setState] = useState<({ rects: Rect[]; pixels: number; absent?: boolean } | { error: string }) & { key: string }>();
  // Versions never change, so only a side that is the working state renders again on news; a
  // render under way is not cut off by the next change (one more follows when it ends), so the
  // pictures keep up with a busy scene instead of starting over for ever.
  const live = from === "working" || to === "working" ? stamp : 0;
  const busy = useRef(false);
  const again = useRef(false);
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (busy.current) return void (again.current = true);
    busy.current = true;
    const q = (id: string) => `/versions/${id}/render?app=${app}${scene ? `&scene=${encodeURIComponent(scene)}` : ""}&camera=${to}&width=${W}&height=${H}`;
    Promise.all([absent === "before" ? null : loadImage(q(from)), absent === "after" ? null : loadImage(q(to))])
      .then(([a, b]) => {
        if (!before.current || !after.current) return;
        if (!a || !b) {
          // The scene is on one side only: the whole of it is the change, nothing to box.
          if (a) draw(before.current, a, []); else drawAbsent(before.current, `no ${scene ?? "scene"} at ${from}`);
          if (b) draw(after.current, b, []); else drawAbsent(after.current, `no ${scene ?? "scene"} at ${to}`);
          setState({ rects: [], pixels: 0, absent: true, key: `${from}:${to}` });
          return;
        }
        const pixels = (img: ImageBitmap) => {
          const c = new OffscreenCanvas(W, H).getContext("2d")!;
          c.drawImage(img, 0, 0);
          return c.getImageData(0, 0, W, H).data;
        };
        const found = changedRegions(pixels(a), pixels(b), W, H);
        draw(before.current, a, found.rects);
        draw(after.current, b, found.rects);
        setState({ ...found, key: `${from}:${to}` });
      })
      .catch((e: Error) => setState({ error: e.message, key: `${from}:${to}` }))
      .finally(() => {
        busy.current = false;
        if (again.current) {
          again.current = false;
          setRound((n) => n + 1);
        }
      });
  }, [from, to, app, scene, absent, live, round]);
  // A picture of another pair than the one asked for is not shown as its answer.
  const current = state?.key === `${from}:${to}` ? state : undefined;
  const marks = current && "rects" in current ? current : undefined;
  return (
    <figure className="diff-renders" data-testid={testId} data-changed-pixels={marks?.pixels} data-marks={marks?.rects.length}>
      <div className="diff-pair">
        <div><div className="muted small">before · {from}</div><canvas ref={before} width={W} height={H} aria-label={`${app} scene at ${from}`} data-testid="render-before" /></div>
        <div><div className="muted small">after · {to}</div><canvas ref={after} width={W} height={H} aria-label={`${app} scene at ${to}`} data-testid="render-after" /></div>
      </div>
      <figcaption className="muted small">
        {named && scene ? <strong>{scene}: </strong> : null}
        {!current ? "rendering…" : "error" in current ? <span className="field-error">{current.error}</span>
          : marks!.absent ? `${app}: the scene ${absent === "before" ? `is new at ${to}` : `is gone at ${to}`}`
          : marks!.pixels ? `${app}: ${marks!.rects.length} changed region${marks!.rects.length === 1 ? "" : "s"} boxed in red (${marks!.pixels} pixels), seen from ${to}'s camera`
          : `${app}: no visible difference from ${to}'s camera`}
      </figcaption>
    </figure>
  );
}
