"use client";
/**
 * The WebGL view (../_lib/three-view.ts) on a canvas: drag to orbit, right-drag to pan, wheel to
 * zoom, click to select. With the canvas focused: arrows orbit, C views through the scene camera,
 * F frames everything. Without WebGL the page says so instead of showing a blank box.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from "react";
import type { SceneModel } from "../_lib/scene-model";
import { SceneView, probeWebgl } from "../_lib/three-view";
import type { Person } from "../../_lib/use-collab";
import { Initials } from "../../_components/presence-bar";

declare global {
  /** The page's view, for tests and benches that measure frames and read pixels. */
  interface Window { kilnSceneView?: SceneView }
}

interface Props {
  model: SceneModel | null; selected: string | null; onSelect: (name: string | null) => void;
  /** Who else has each object selected: their initials are drawn at the object. */
  here?: ReadonlyMap<string, Person[]>;
}

/** Others' initials at the objects they have selected, following the camera (a few times a second). */
function PresenceMarks({ view, here }: { view: SceneView | null; here?: ReadonlyMap<string, Person[]> }) {
  const [, tick] = useState(0);
  useEffect(() => {
    if (!here?.size) return;
    const timer = setInterval(() => tick((n) => n + 1), 250);
    return () => clearInterval(timer);
  }, [here]);
  if (!view || !here?.size) return null;
  return (
    <>
      {[...here].map(([name, people]) => {
        const at = view.screenPoint(name);
        return at && (
          <span key={name} className="view-presence" style={{ left: at.x, top: at.y }} data-object={name}>
            {people.map((p) => <Initials key={p.session} person={p} />)}
          </span>
        );
      })}
    </>
  );
}

export function SceneCanvas({ model, selected, onSelect, here }: Props) {
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const viewRef = useRef<SceneView | null>(null);
  const [noWebgl, setNoWebgl] = useState(false);
  const down = useRef<{ x: number; y: number } | null>(null);
  const app = model?.app;

  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas || !app) return;
    const gl = probeWebgl();
    if (!gl.available) return setNoWebgl(true);
    let view: SceneView;
    try {
      view = new SceneView(canvas, app, gl.software);
    } catch {
      return setNoWebgl(true);
    }
    viewRef.current = view;
    window.kilnSceneView = view;
    const observer = new ResizeObserver(() => view.resize());
    observer.observe(canvas);
    return () => {
      observer.disconnect();
      view.dispose();
      viewRef.current = null;
      if (window.kilnSceneView === view) delete window.kilnSceneView;
    };
  }, [app]);

  const placed = useRef(false);
  useEffect(() => {
    const view = viewRef.current;
    if (!view || !model) return;
    view.setModel(model, selected);
    if (!placed.current) {
      placed.current = true;
      view.viewThroughSceneCamera();
    }
    // `selected` is applied by the effect below; rebuilding for a selection alone would be waste.
  }, [model]);
  useEffect(() => viewRef.current?.select(selected), [selected]);

  const onPointerDown = (e: PointerEvent) => { down.current = { x: e.clientX, y: e.clientY }; };
  const onPointerUp = (e: PointerEvent) => {
    const d = down.current;
    down.current = null;
    // A drag orbits; only a click (little movement) selects.
    if (!d || Math.hypot(e.clientX - d.x, e.clientY - d.y) > 4 || e.button !== 0) return;
    onSelect(viewRef.current?.pick(e.clientX, e.clientY) ?? null);
  };
  const onKey = (e: KeyboardEvent) => {
    const view = viewRef.current;
    if (!view || e.ctrlKey || e.metaKey) return;
    const step = Math.PI / 36;
    const actions: Record<string, () => void> = {
      ArrowLeft: () => view.orbit(-step), ArrowRight: () => view.orbit(step),
      ArrowUp: () => view.orbit(0, -step), ArrowDown: () => view.orbit(0, step),
      c: () => view.viewThroughSceneCamera(), f: () => view.frameAll(),
    };
    const action = actions[e.key];
    if (action) { e.preventDefault(); action(); }
  };

  if (noWebgl)
    return (
      <section className="studio-view studio-nowebgl" role="alert">
        <h2>WebGL is not available</h2>
        <p>This browser gave the page no WebGL context, so the scene cannot be drawn here. The tree and the inspector still work; turn on hardware acceleration (or use a browser with WebGL) to see the scene.</p>
      </section>
    );
  return (
    <section className="studio-view" aria-label="Scene view">
      <div className="studio-view-tools">
        <button type="button" onClick={() => viewRef.current?.viewThroughSceneCamera()} title="View through the scene camera (C)">Scene camera</button>
        <button type="button" onClick={() => viewRef.current?.frameAll()} title="Frame everything (F)">Frame all</button>
      </div>
      <canvas
        ref={canvasRef} tabIndex={0} aria-label="3D view: drag to orbit, right-drag to pan, wheel to zoom; arrows orbit, C scene camera, F frame all"
        onPointerDown={onPointerDown} onPointerUp={onPointerUp} onKeyDown={onKey}
      />
      <PresenceMarks view={viewRef.current} here={here} />
    </section>
  );
}
