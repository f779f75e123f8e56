"use client";
/**
 * A step's part of the last run: status, time, what the tool was given (its params with the
 * placeholders filled) and what it gave back (screenshots as images) or its error, and a note
 * when the step switched an app's active scene.
 */
import { isRecord } from "../_lib/draft";
import { formatDuration, sceneSwitch, screenshotUrl, type NodeRun } from "../_lib/run-progress";
import { formatValue } from "../_lib/summary";
import { ScreenshotImage } from "./screenshot-image";

const TITLES = { pending: "Waiting to run", running: "Running…", succeeded: "Succeeded", failed: "Failed", skipped: "Skipped" } as const;

/** A stored value cut short by the run history (over 64 KiB): say so rather than show `{truncated}`. */
function Json({ value }: { value: unknown }) {
  const cut = value as { truncated?: unknown; bytes?: unknown } | null;
  if (cut && cut.truncated === true && typeof cut.bytes === "number")
    return <p className="muted small">Too big to keep in the run history ({Math.round(cut.bytes / 1024)} KiB); the run's own answer had it whole.</p>;
  return <pre className="result-json">{JSON.stringify(value, null, 2)}</pre>;
}

/** The params a step's tool got, one per line as the canvas writes values ((0, 10, -20) for vectors). */
function Inputs({ params }: { params: unknown }) {
  const cut = params as { truncated?: unknown } | null;
  if (!isRecord(params) || cut?.truncated === true) return <Json value={params} />;
  const entries = Object.entries(params);
  if (!entries.length) return <p className="muted small">no parameters</p>;
  return (
    <dl className="step-io">
      {entries.map(([k, v]) => <div key={k}><dt>{k}</dt><dd>{typeof v === "string" ? JSON.stringify(v) : formatValue(v)}</dd></div>)}
    </dl>
  );
}

/** The last run of one step. */
export function RunOutput({ run }: { run: NodeRun }) {
  const outcome = run.outcome;
  const image = screenshotUrl(outcome?.result);
  const switched = sceneSwitch(outcome?.result);
  return (
    <div className={`run-output run-${run.status}`} data-testid="run-output">
      <h3 className="inspector-subhead">
        Last run: {TITLES[run.status]}
        {outcome && <span className="muted"> · {formatDuration(outcome.duration_ms)}</span>}
      </h3>
      {outcome?.reason && <p className="muted">{outcome.reason}</p>}
      {switched && <p className="notice run-note" data-testid="scene-switch">{switched}</p>}
      {outcome?.params !== undefined && (
        <details open={!image} data-testid="step-inputs">
          <summary>Inputs <span className="muted small">(params as the tool got them)</span></summary>
          <Inputs params={outcome.params} />
        </details>
      )}
      {outcome?.error && (
        <p className="field-error">
          <code>{outcome.error.code}</code> {outcome.error.message}
        </p>
      )}
      {image && (
        <a href={image} target="_blank" rel="noreferrer">
          <ScreenshotImage className="run-screenshot" url={image} alt="The screenshot this step took" />
        </a>
      )}
      {outcome?.result !== undefined && (
        <details open={!image} data-testid="step-output">
          <summary>Output <span className="muted small">(the tool's result)</span></summary>
          <Json value={outcome.result} />
        </details>
      )}
    </div>
  );
}
