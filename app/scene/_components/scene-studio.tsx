"use client";
/**
 * The scene page: loads the scene with get_scene, keeps it current from GET /events, and lays out
 * the tree, the WebGL view and the inspector. Ctrl+Z / Ctrl+Shift+Z (and Ctrl+Y) call undo/redo,
 * which act on this tab's own steps; the Undo button says which ("Undo: move Box, 2 min ago").
 */
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useTRPCClient } from "@/app/recipes/_lib/trpc";
import { useKilnEvents, type StreamEvent } from "@/app/_lib/use-kiln-events";
import type { AppId } from "@/server/scene/types";
import { applyRecords, modelFromScene, type SceneModel } from "../_lib/scene-model";
import { sceneApi, undoLabel, type UndoState } from "../_lib/scene-api";
import { Inspector } from "./inspector";
import { ObjectTree } from "./object-tree";
import { SceneCanvas } from "./scene-canvas";
import { EditGate, useCanEdit } from "../../_lib/viewer";
import { useCollab, useEditLock, type Person } from "../../_lib/use-collab";
import { PresenceBar } from "../../_components/presence-bar";

const APP_LINKS: AppId[] = ["blender", "unity", "godot"];

export function SceneStudio({ app, scene }: { app?: AppId; scene?: string }) {
  const client = useTRPCClient();
  const api = useMemo(() => sceneApi(client, app, scene), [client, app, scene]);
  const [model, setModel] = useState<SceneModel | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [undoState, setUndoState] = useState<UndoState | null>(null);
  const [, setTick] = useState(0);
  const modelRef = useRef(model);
  modelRef.current = model;

  const reload = useCallback(() => {
    api.getScene().then((r) => { setModel(modelFromScene(r)); setError(null); }, (e: Error) => setError(e.message));
  }, [api]);
  useEffect(reload, [reload]);
  // What Undo would undo: asked again after every change (anyone's: a conflict may come or go).
  const refreshUndo = useCallback(() => {
    api.undoState().then(setUndoState, () => setUndoState(null));
  }, [api]);
  useEffect(refreshUndo, [refreshUndo]);
  useEffect(() => {
    const t = setInterval(() => setTick((n) => n + 1), 30_000); // "2 min ago" moves on
    return () => clearInterval(t);
  }, []);

  const onEvent = useCallback((e: StreamEvent) => {
    if (e.kind === "operation" || e.kind === "branch" || e.kind === "reset") refreshUndo();
    const m = modelRef.current;
    if (e.kind === "reset" || e.kind === "branch") return reload();
    if (e.kind !== "operation" || !m) return;
    const ours = `${m.app}/${m.scene}`;
    if (!e.records) {
      if (e.scenes.includes(ours) || e.app === null || e.app === m.app) reload();
      return;
    }
    const next = applyRecords(m, e.records);
    if (next !== m) setModel(next);
  }, [reload, refreshUndo]);
  const stream = useKilnEvents(onEvent, ["operation", "branch"]);

  /** Calls a tool; false when it refused (the notice says why), so a field can show the value it kept. */
  const run = useCallback(async (what: string, call: () => Promise<unknown>): Promise<boolean> => {
    try {
      await call();
      setNotice(null);
      return true;
    } catch (e) {
      setNotice(`${what}: ${(e as Error).message}`);
      return false;
    }
  }, []);

  // Viewers (team mode) see the scene; its undo, redo and inspector are disabled for them.
  const canEdit = useCanEdit();
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey) || !canEdit) return;
      const target = e.target as HTMLElement;
      // Inside a text field, Ctrl+Z edits the text.
      if (target.closest("input, textarea, select")) return;
      const key = e.key.toLowerCase();
      if (key === "z" && !e.shiftKey) { e.preventDefault(); void run("Undo", api.undo); }
      else if ((key === "z" && e.shiftKey) || key === "y") { e.preventDefault(); void run("Redo", api.redo); }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [api, run, canEdit]);

  const object = model?.objects.find((o) => o.name === selected) ?? null;
  // Presence: this tab says where it is; others show on the bar, in the tree and in the view.
  const place = useMemo(() => (model ? { page: "scene", scene: `${model.app}/${model.scene}`, selected } : null), [model?.app, model?.scene, selected]); // eslint-disable-line react-hooks/exhaustive-deps
  const { others, locks, session } = useCollab(place);
  const here = useMemo(() => {
    const byObject = new Map<string, Person[]>();
    if (!model) return byObject;
    for (const p of others) {
      if (p.studio?.scene !== `${model.app}/${model.scene}` || !p.studio.selected) continue;
      byObject.set(p.studio.selected, [...(byObject.get(p.studio.selected) ?? []), p]);
    }
    return byObject;
  }, [others, model]);
  const lockedBy = useMemo(() => {
    const byObject = new Map<string, string>();
    if (!model) return byObject;
    const prefix = `object/${model.app}/${encodeURIComponent(model.scene)}/`;
    for (const l of locks) if (l.holder.session !== session && l.key.startsWith(prefix)) byObject.set(l.name, l.holder.name);
    return byObject;
  }, [locks, model, session]);
  // Editing an object in the inspector holds a lock on it.
  const target = useMemo(() => (object && model ? { kind: "object" as const, name: object.name, app: model.app, scene: model.scene } : null), [object?.name, model?.app, model?.scene]); // eslint-disable-line react-hooks/exhaustive-deps
  const otherLock = useEditLock(target, canEdit, locks, session);
  return (
    <div className="studio">
      <header className="studio-bar">
        <nav aria-label="App">
          {APP_LINKS.map((a) => (
            <a key={a} href={`/scene?app=${a}`} aria-current={model?.app === a ? "page" : undefined}>{a}</a>
          ))}
        </nav>
        {model && model.scenes.length > 1 && (
          <label>
            Scene{" "}
            <select value={model.scene} onChange={(e) => { window.location.search = `?app=${model.app}&scene=${encodeURIComponent(e.target.value)}`; }}>
              {model.scenes.map((s) => <option key={s}>{s}</option>)}
            </select>
          </label>
        )}
        {model && !(model.scenes.length > 1) && <span className="studio-scene">Scene <strong>{model.scene}</strong></span>}
        <span className="spacer" />
        <PresenceBar people={others} />
        {undoState?.undo && <span className="muted small" data-testid="undo-next">{undoLabel("Undo", undoState.undo)}</span>}
        <button type="button" onClick={() => run("Undo", api.undo)} title={`${undoLabel("Undo", undoState?.undo ?? null)} (Ctrl+Z)`} disabled={!canEdit} data-testid="undo-button">Undo</button>
        <button type="button" onClick={() => run("Redo", api.redo)} title={`${undoLabel("Redo", undoState?.redo ?? null)} (Ctrl+Shift+Z)`} disabled={!canEdit}>Redo</button>
        <span className={`live live-${stream}`} role="status">{stream === "open" ? "live" : stream}</span>
      </header>
      {notice && <p className="studio-notice" role="alert">{notice}</p>}
      {error && <p className="studio-notice" role="alert">Could not load the scene: {error}</p>}
      <div className="studio-main">
        <ObjectTree objects={model?.objects ?? []} selected={selected} onSelect={setSelected} here={here} lockedBy={lockedBy} />
        <SceneCanvas model={model} selected={selected} onSelect={setSelected} here={here} />
        <EditGate label="Inspector (read-only)">
          <Inspector object={object} model={model} api={api} run={run}
            lock={otherLock ? `Locked by ${otherLock.holder.label} since ${otherLock.since.slice(11, 16)} UTC: your changes to it will be refused.` : null} />
        </EditGate>
      </div>
    </div>
  );
}
