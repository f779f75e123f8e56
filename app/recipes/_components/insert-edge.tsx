"use client";
/** The link between two consecutive nodes, with a "+" in the middle that inserts a step there. */
import { BaseEdge, EdgeLabelRenderer, getSmoothStepPath, type EdgeProps } from "@xyflow/react";
import { memo } from "react";
import { useActions } from "./builder-context";

function InsertEdgeView({ id, sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, data, animated }: EdgeProps) {
  const actions = useActions();
  const [path, labelX, labelY] = getSmoothStepPath({ sourceX, sourceY, targetX, targetY, sourcePosition, targetPosition, borderRadius: 12, offset: 28 });
  const index = (data as { index: number }).index;
  return (
    <>
      <BaseEdge id={id} path={path} className={animated ? "edge-running" : undefined} />
      <EdgeLabelRenderer>
        <button
          type="button"
          className="edge-insert nodrag nopan"
          style={{ transform: `translate(-50%, -50%) translate(${labelX}px, ${labelY}px)` }}
          onClick={() => actions.openInsert(index)}
          title="Insert a step here"
          aria-label={`Insert a step before step ${index + 1}`}
          tabIndex={-1}
        >
          +
        </button>
      </EdgeLabelRenderer>
    </>
  );
}

/** The edge type "insert". */
export const InsertEdge = memo(InsertEdgeView);
