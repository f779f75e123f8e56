"use client";
/** The first node of the chain: the recipe's name, description, version, author and variables. */
import { Handle, Position, type NodeProps } from "@xyflow/react";
import { memo } from "react";
import type { StartNode as StartNodeType } from "../_lib/graph";
import { MAX_NODE_ERRORS } from "../_lib/layout";
import { formatValue } from "../_lib/summary";

const asText = (v: unknown) => (typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v));

function StartNodeView({ data, selected }: NodeProps<StartNodeType>) {
  const { fields, variables, issues } = data;
  const meta = [fields.version !== undefined && `v${asText(fields.version)}`, fields.author !== undefined && `by ${asText(fields.author)}`, fields.transaction === true && "in a transaction"]
    .filter(Boolean)
    .join(" · ");
  return (
    <div className={`node start-node${selected ? " is-selected" : ""}${issues.length ? " has-errors" : ""}`} data-testid="start-node">
      <div className="node-header">
        <span className="node-index start-icon" aria-hidden>▶</span>
        <span className="node-title">{asText(fields.name) || <em>untitled recipe</em>}</span>
      </div>
      <div className="node-line node-summary" title={asText(fields.description)}>{asText(fields.description) || "no description"}</div>
      <div className="node-line node-meta">{meta || "no version or author"}</div>
      <div className="node-vars-title">{variables.length ? "Variables" : "No variables"}</div>
      {variables.map(([name, value]) => (
        <div className="node-var" key={name} data-testid="node-variable" data-variable={name}>
          <code>{name}</code> = <span className="node-var-value">{typeof value === "string" ? JSON.stringify(value) : formatValue(value)}</span>
        </div>
      ))}
      {issues.slice(0, MAX_NODE_ERRORS).map((issue, i) => (
        <div className="node-error" key={i} title={`${issue.path}: ${issue.message}`} data-testid="node-error">
          {issue.path ? `${issue.path}: ` : ""}{issue.message}
        </div>
      ))}
      {issues.length > MAX_NODE_ERRORS && <div className="node-error">and {issues.length - MAX_NODE_ERRORS} more</div>}
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
}

/** The canvas node of the recipe itself. */
export const StartNode = memo(StartNodeView);
