"use client";
/**
 * A step on the canvas: number, name, tool, a one-line summary of its params, badges for its
 * condition, on_error and id, its validation errors and its run state (with a thumbnail when it
 * took a screenshot). Rows have fixed heights that layout.ts counts on.
 */
import { Handle, Position, type NodeProps } from "@xyflow/react";
import { memo, useMemo } from "react";
import { isRecord } from "../_lib/draft";
import { hasBadges, type StepNode as StepNodeType } from "../_lib/graph";
import { MAX_NODE_ERRORS } from "../_lib/layout";
import { summarizeParams } from "../_lib/summary";
import { useTools } from "./builder-context";
import { ScreenshotImage } from "./screenshot-image";
import { formatDuration } from "../_lib/run-progress";

const STATUS_LABEL = { pending: "waiting", running: "running", succeeded: "succeeded", failed: "failed", skipped: "skipped" } as const;
const STATUS_ICON = { pending: "…", running: "●", succeeded: "✓", failed: "✕", skipped: "↷" } as const;

function text(value: unknown): string | undefined {
  return typeof value === "string" ? value : value === undefined ? undefined : JSON.stringify(value);
}

function StepNodeView({ data, selected }: NodeProps<StepNodeType>) {
  const tools = useTools();
  const step = isRecord(data.value) ? data.value : {};
  const tool = text(step.tool) ?? "";
  const group = tools.get(tool)?.group ?? "unknown";
  const summary = useMemo(() => summarizeParams(step.params), [step.params]);
  const issues = data.issues ?? [];
  const run = data.run;
  const condition = text(step.condition);
  const onError = text(step.on_error);
  const id = text(step.id);
  const status = run ? ` run-${run.status}` : "";
  return (
    <div
      className={`node step-node group-${group}${selected ? " is-selected" : ""}${issues.length ? " has-errors" : ""}${status}`}
      data-testid="step-node"
      data-step-name={text(step.name) ?? ""}
      data-status={run?.status ?? ""}
      aria-label={`Step ${data.index + 1}: ${text(step.name) ?? "unnamed"}, ${tool || "no tool"}${issues.length ? `, ${issues.length} problems` : ""}${run ? `, ${STATUS_LABEL[run.status]}` : ""}`}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <div className="node-header">
        <span className="node-index">{data.index + 1}</span>
        <span className="node-title">{text(step.name) || <em>unnamed step</em>}</span>
        {run && (
          <span className={`run-pill run-${run.status}`} title={run.outcome?.error?.message ?? run.outcome?.reason ?? STATUS_LABEL[run.status]}>
            {STATUS_ICON[run.status]} {run.outcome ? formatDuration(run.outcome.duration_ms) : STATUS_LABEL[run.status]}
          </span>
        )}
      </div>
      <div className="node-line node-tool">
        <code>{tool || "no tool"}</code>
        {!tools.has(tool) && tool && <span className="node-warn"> unknown tool</span>}
      </div>
      <div className="node-line node-summary" title={summary}>{summary}</div>
      {hasBadges(data.value, run) && (
        <div className="node-badges">
          {condition !== undefined && <span className="badge badge-if" title={condition}>if {condition}</span>}
          {onError !== undefined && <span className={`badge badge-on-error-${onError}`}>on error: {onError}</span>}
          {id !== undefined && <span className="badge badge-id">#{id}</span>}
          {run?.outcome?.error && <span className="badge badge-error" title={run.outcome.error.message}>{run.outcome.error.code}</span>}
        </div>
      )}
      {issues.slice(0, MAX_NODE_ERRORS).map((issue, i) => (
        <div className="node-error" key={i} title={`${issue.path}: ${issue.message}`} data-testid="node-error">
          {issue.message}
        </div>
      ))}
      {issues.length > MAX_NODE_ERRORS && <div className="node-error">and {issues.length - MAX_NODE_ERRORS} more</div>}
      {data.thumbnail && <ScreenshotImage className="node-thumb" url={data.thumbnail} alt={`Screenshot taken by ${text(step.name)}`} />}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

/** The canvas node of a step. */
export const StepNode = memo(StepNodeView);
