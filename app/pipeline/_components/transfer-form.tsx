"use client";
/**
 * Starts a transfer: the source app's transferable objects (list_transferable_assets), then a
 * target app and a format among those the path table allows for that object, then options.
 */
import { useState } from "react";
import { useStudioApi, type TransferResult } from "@/app/_lib/studio-api";
import { attempt, useLoad } from "@/app/_lib/use-load";

const APPS = ["blender", "unity", "godot"] as const;

export function TransferForm({ stamp, onDone }: { stamp: number; onDone(message: string): void }) {
  const api = useStudioApi();
  const [source, setSource] = useState<string>("blender");
  const [asset, setAsset] = useState("");
  const [target, setTarget] = useState("");
  const [format, setFormat] = useState("");
  const [applyModifiers, setApplyModifiers] = useState(true);
  const [animations, setAnimations] = useState(true);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string>();
  const list = useLoad(() => api.transferable(source), [api, source, stamp]);
  const assets = list.data?.assets ?? [];
  const chosen = assets.find((a) => a.name === asset) ?? assets[0];
  const targets = Object.keys(chosen?.targets ?? {});
  const targetApp = targets.includes(target) ? target : targets[0] ?? "";
  const formats = chosen?.targets[targetApp] ?? [];
  const fmt = formats.includes(format) ? format : formats[0] ?? "";
  const submit = async () => {
    if (!chosen) return;
    setBusy(true);
    let result: TransferResult | undefined;
    const ok = await attempt(async () => {
      result = await api.write<TransferResult>("transfer_asset", {
        source_app: source, target_app: targetApp, asset: chosen.name, format: fmt,
        options: { apply_modifiers: applyModifiers, include_animations: animations },
      });
    }, setProblem);
    setBusy(false);
    if (ok && result) onDone(`${result.asset} → ${result.target_app} as ${result.format} in ${result.duration_ms} ms${result.warnings.length ? ` (${result.warnings.length} warning${result.warnings.length === 1 ? "" : "s"})` : ""}`);
  };
  return (
    <form className="transfer-form" aria-label="Start a transfer" onSubmit={(e) => { e.preventDefault(); void submit(); }}>
      <div className="field-pair">
        <label className="field">From app
          <select value={source} onChange={(e) => { setSource(e.target.value); setAsset(""); }} data-testid="transfer-source">{APPS.map((a) => <option key={a}>{a}</option>)}</select>
        </label>
        <label className="field">Object
          <select value={chosen?.name ?? ""} onChange={(e) => setAsset(e.target.value)} disabled={!assets.length} data-testid="transfer-asset">
            {assets.map((a) => <option key={a.name} value={a.name}>{a.name} ({a.kind}{a.objects > 1 ? `, ${a.objects} objects` : ""}, {a.triangles} tris)</option>)}
          </select>
        </label>
        <label className="field">To app
          <select value={targetApp} onChange={(e) => setTarget(e.target.value)} disabled={!targets.length} data-testid="transfer-target">{targets.map((t) => <option key={t}>{t}</option>)}</select>
        </label>
        <label className="field">Format
          <select value={fmt} onChange={(e) => setFormat(e.target.value)} disabled={!formats.length} data-testid="transfer-format">{formats.map((f) => <option key={f}>{f}</option>)}</select>
        </label>
      </div>
      <div className="row">
        <label className="checkbox-field"><input type="checkbox" checked={applyModifiers} onChange={(e) => setApplyModifiers(e.target.checked)} /> Apply modifiers</label>
        <label className="checkbox-field"><input type="checkbox" checked={animations} onChange={(e) => setAnimations(e.target.checked)} /> Include animations</label>
        <span className="spacer" />
        <button type="submit" className="primary" disabled={busy || !chosen || !fmt} data-testid="transfer-start">{busy ? "Transferring…" : "Transfer"}</button>
      </div>
      {list.data && !assets.length && <p className="empty">{source}&apos;s active scene has no object to transfer.</p>}
      {list.error && <p className="notice error" role="alert">{list.error}</p>}
      {problem && <p className="notice error" role="alert">{problem}</p>}
    </form>
  );
}
