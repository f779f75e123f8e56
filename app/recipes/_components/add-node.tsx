"use client";
/** The "+ Add step" node after the last step. */
import { Handle, Position, type NodeProps } from "@xyflow/react";
import { memo } from "react";
import type { AddNode as AddNodeType } from "../_lib/graph";
import { useActions } from "./builder-context";

function AddNodeView({ data }: NodeProps<AddNodeType>) {
  const actions = useActions();
  return (
    <div className="node add-node">
      <Handle type="target" position={Position.Top} isConnectable={false} />
      <button type="button" className="add-button nodrag" onClick={() => actions.openInsert(data.index)} data-testid="add-step-end">
        + Add step
      </button>
    </div>
  );
}

/** The node that adds a step at the end. */
export const AddNode = memo(AddNodeView);
