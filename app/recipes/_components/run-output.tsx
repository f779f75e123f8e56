"use client";
/** A step's part of the last run: status, time, and its result (screenshots as images) or error. */
import { formatDuration, screenshotUrl, type NodeRun } from "../_lib/run-progress";
import { ScreenshotImage } from "./screenshot-image";

const TITLES = { pending: "Waiting to run", running: "Running…", succeeded: "Succeeded", failed: "Failed", skipped: "Skipped" } as const;

/** The last run of one step. */
export function RunOutput({ run }: { run: NodeRun }) {
  const outcome = run.outcome;
  const image = screenshotUrl(outcome?.result);
  return (
    <div className={`run-output run-${run.status}`} data-testid="run-output">
      <h3 className="inspector-subhead">
        Last run: {TITLES[run.status]}
        {outcome && <span className="muted"> · {formatDuration(outcome.duration_ms)}</span>}
      </h3>
      {outcome?.reason && <p className="muted">{outcome.reason}</p>}
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
        <details open={!image}>
          <summary>Result</summary>
          <pre className="result-json">{JSON.stringify(outcome.result, null, 2)}</pre>
        </details>
      )}
    </div>
  );
}
