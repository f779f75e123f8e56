"use client";
/**
 * The React Flow canvas of a recipe. Positions come from the auto-layout (layout.ts); a node
 * dragged onto the gap between two others is moved there (a reorder, one undo step); dropped
 * anywhere else it stays where it was put until the chain changes or Auto-layout is pressed.
 * React Flow's own keyboard handling and deletion are off: the builder's shortcuts own the keys.
 */
import {
  Background, BackgroundVariant, Controls, MiniMap, ReactFlow, ViewportPortal, useReactFlow, useStore, useStoreApi,
  type NodeChange, type NodeMouseHandler, type OnNodeDrag,
} from "@xyflow/react";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { buildEdges, buildNodes, chainHeights, START_ID, type ChainNode, type EdgeCache, type NodeCache } from "../_lib/graph";
import type { IssueIndex } from "../_lib/issues";
import { NODE_WIDTH, dropSlots, layoutChain, nearestSlot, targetIndex, type DropSlot, type Point } from "../_lib/layout";
import type { RecipeDraft } from "../_lib/draft";
import type { NodeRun } from "../_lib/run-progress";
import { AddNode } from "./add-node";
import { useActions } from "./builder-context";
import { InsertEdge } from "./insert-edge";
import { StartNode } from "./start-node";
import { StepNode } from "./step-node";

const nodeTypes = { step: StepNode, start: StartNode, add: AddNode };
const edgeTypes = { insert: InsertEdge };
const MINIMAP_COLORS: Record<string, string> = { running: "#f08a3c", succeeded: "#4cc38a", failed: "#ef5f5f", skipped: "#8a8f98" };

/** Props of the canvas. */
export interface RecipeCanvasProps {
  draft: RecipeDraft;
  issues: IssueIndex;
  runs: ReadonlyMap<string, NodeRun>;
  selection: readonly string[];
  /** Moves a step to a new index (drag and drop). */
  onMoveStep(uid: string, index: number): void;
  /** Bumped to re-run the layout and fit the view (the Auto-layout button). */
  layoutToken: number;
  /** A node to bring into view (keyboard navigation), with a counter so repeats count. */
  reveal?: { id: string; n: number };
}

/** The canvas: nodes, edges, minimap, zoom controls, drag to reorder. */
export function RecipeCanvas({ draft, issues, runs, selection, onMoveStep, layoutToken, reveal }: RecipeCanvasProps) {
  const actions = useActions();
  const flow = useReactFlow();
  const store = useStoreApi();
  // On a narrow canvas (side panels open at 1280 px) the overview would hide the nodes.
  const wide = useStore((s) => s.width >= 720);
  const cache = useRef<NodeCache>(new Map());
  const edgeCache = useRef<EdgeCache>(new Map());
  const [moved, setMoved] = useState<ReadonlyMap<string, Point>>(new Map());
  const [slot, setSlot] = useState<DropSlot | undefined>();
  const selected = useMemo(() => new Set(selection), [selection]);
  const order = draft.steps.map((s) => s.uid).join(",");

  // The chain changed (or Auto-layout was pressed): everything goes back to its laid-out place.
  useEffect(() => setMoved(new Map()), [order, layoutToken]);
  useEffect(() => {
    if (layoutToken > 0) void flow.fitView({ padding: 0.15, maxZoom: 1, duration: 200 });
  }, [layoutToken, flow]);

  const nodes = useMemo(() => buildNodes({ draft, issues, runs, selection: selected, moved }, cache.current), [draft, issues, runs, selected, moved]);
  const edges = useMemo(() => buildEdges(draft, runs, edgeCache.current), [draft, runs]);
  const layout = useMemo(() => {
    const heights = chainHeights({ draft, issues, runs });
    const positions = layoutChain(heights);
    return { positions, slots: dropSlots(positions, heights), heights };
  }, [draft, issues, runs]);

  useEffect(() => {
    if (!reveal) return;
    const index = reveal.id === START_ID ? 0 : draft.steps.findIndex((s) => s.uid === reveal.id) + 1;
    const at = layout.positions[index];
    if (!at || index < 0) return;
    const { x, y, zoom } = flow.getViewport();
    const { width, height } = store.getState();
    const left = at.x * zoom + x;
    const top = at.y * zoom + y;
    const visible = left >= 0 && top >= 0 && left + NODE_WIDTH * zoom <= width && top + layout.heights[index] * zoom <= height;
    if (!visible) void flow.setCenter(at.x + NODE_WIDTH / 2, at.y + layout.heights[index] / 2, { zoom: Math.max(zoom, 0.6), duration: 150 });
    // Only a new reveal request moves the view, not every layout change.
  }, [reveal]);

  const selectionRef = useRef(selection);
  selectionRef.current = selection;
  const onNodesChange = useCallback(
    (changes: NodeChange<ChainNode>[]) => {
      let next: string[] | undefined;
      const positions: [string, Point][] = [];
      for (const change of changes) {
        if (change.type === "position" && change.position) positions.push([change.id, change.position]);
        if (change.type === "select") {
          next ??= [...selectionRef.current];
          next = next.filter((id) => id !== change.id);
          if (change.selected) next.push(change.id);
        }
      }
      if (positions.length) setMoved((m) => new Map([...m, ...positions]));
      if (next) actions.select(next);
    },
    [actions],
  );

  const chainIndex = useCallback((id: string) => (id === START_ID ? 0 : draft.steps.findIndex((s) => s.uid === id) + 1), [draft.steps]);
  const onNodeDrag: OnNodeDrag<ChainNode> = useCallback(
    (_event, node) => {
      if (node.type !== "step") return;
      const point = { x: node.position.x + NODE_WIDTH / 2, y: node.position.y + 16 };
      setSlot(nearestSlot(layout.slots, point, chainIndex(node.id)));
    },
    [layout.slots, chainIndex],
  );
  const onNodeDragStop: OnNodeDrag<ChainNode> = useCallback(
    (_event, node) => {
      setSlot(undefined);
      if (node.type !== "step") return;
      const point = { x: node.position.x + NODE_WIDTH / 2, y: node.position.y + 16 };
      const target = nearestSlot(layout.slots, point, chainIndex(node.id));
      if (target) onMoveStep(node.id, targetIndex(chainIndex(node.id) - 1, target.index));
    },
    [layout.slots, chainIndex, onMoveStep],
  );
  const onNodeClick: NodeMouseHandler<ChainNode> = useCallback(() => actions.focusCanvas(), [actions]);
  // The first view shows the start of the recipe at a readable zoom, however long it is.
  const [initialFit] = useState(() => ({ nodes: [{ id: START_ID }, ...draft.steps.slice(0, 4).map((s) => ({ id: s.uid }))], maxZoom: 1, padding: 0.12 }));

  return (
    <ReactFlow<ChainNode>
      nodes={nodes}
      edges={edges}
      nodeTypes={nodeTypes}
      edgeTypes={edgeTypes}
      onNodesChange={onNodesChange}
      onNodeDrag={onNodeDrag}
      onNodeDragStop={onNodeDragStop}
      onNodeClick={onNodeClick}
      onPaneClick={() => {
        actions.select([]);
        actions.focusCanvas();
      }}
      nodesConnectable={false}
      nodesFocusable={false}
      edgesFocusable={false}
      disableKeyboardA11y
      deleteKeyCode={null}
      selectionKeyCode="Shift"
      multiSelectionKeyCode={["Control", "Meta"]}
      // As in n8n: the wheel (or two fingers) scrolls the canvas; Ctrl/Cmd + wheel and pinch zoom.
      panOnScroll
      zoomOnPinch
      zoomActivationKeyCode={["Control", "Meta"]}
      onlyRenderVisibleElements={draft.steps.length > 40}
      fitView
      fitViewOptions={initialFit}
      minZoom={0.1}
      maxZoom={1.75}
      colorMode="dark"
      proOptions={{ hideAttribution: false }}
      attributionPosition="top-right"
    >
      <Background variant={BackgroundVariant.Dots} gap={20} size={1} />
      {wide && <MiniMap pannable zoomable style={{ width: 160, height: 110 }} ariaLabel="Overview of the recipe" nodeColor={(n) => MINIMAP_COLORS[(n.data as { run?: NodeRun }).run?.status ?? ""] ?? (n.type === "start" ? "#f08a3c" : "#3a404b")} />}
      <Controls showInteractive={false} />
      {slot && (
        <ViewportPortal>
          <div className="drop-slot" style={{ transform: `translate(${slot.x - NODE_WIDTH / 2}px, ${slot.y - 3}px)`, width: NODE_WIDTH }} />
        </ViewportPortal>
      )}
    </ReactFlow>
  );
}
