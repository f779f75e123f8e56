/**
 * RecipeDraft (+ issues, run states, selection) → React Flow nodes and edges: a start node, then
 * one node per step in order, each connected to the next. Node objects are reused while nothing
 * they show has changed, so React Flow re-renders only the nodes an edit touched (a 200-step
 * recipe stays fast to type in).
 */
import type { Edge, Node } from "@xyflow/react";
import { isRecord, type RecipeDraft } from "./draft";
import type { Issue, IssueIndex } from "./issues";
import { NODE_WIDTH, ROW_GAP, layoutChain, startHeight, stepHeight, type Point } from "./layout";
import { screenshotUrl, type NodeRun } from "./run-progress";

/** Id of the start node (steps use their uid). */
export const START_ID = "start";
/** Id of the "add a step" node after the last step. */
export const ADD_ID = "add";
/** Height of the "add a step" node. */
export const ADD_HEIGHT = 36;

/** What a step node shows. */
export interface StepNodeData extends Record<string, unknown> {
  uid: string;
  index: number;
  value: unknown;
  issues?: Issue[];
  run?: NodeRun;
  thumbnail?: string;
}

/** What the start node shows. */
export interface StartNodeData extends Record<string, unknown> {
  fields: Record<string, unknown>;
  variables: [string, unknown][];
  issues: Issue[];
}

/** A step on the canvas. */
export type StepNode = Node<StepNodeData, "step">;
/** The recipe (start) node. */
export type StartNode = Node<StartNodeData, "start">;
/** The "+ Add step" node; `index` is where it adds. */
export type AddNode = Node<{ index: number }, "add">;
/** Any node of the canvas. */
export type ChainNode = StepNode | StartNode | AddNode;

/** Inputs of the graph. */
export interface GraphInput {
  draft: RecipeDraft;
  issues: IssueIndex;
  runs: ReadonlyMap<string, NodeRun>;
  selection: ReadonlySet<string>;
  /** Positions the user dragged nodes to (until the next re-layout). */
  moved: ReadonlyMap<string, Point>;
}

/** The last graph's nodes by id, to reuse unchanged ones. */
export type NodeCache = Map<string, ChainNode>;

const sameData = (a: Record<string, unknown>, b: Record<string, unknown>) => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
};

function reuse<T extends ChainNode>(cache: NodeCache, next: T): T {
  const old = cache.get(next.id) as T | undefined;
  const same = old && old.type === next.type && old.selected === next.selected && old.height === next.height;
  if (same && old.position.x === next.position.x && old.position.y === next.position.y && sameData(old.data, next.data)) {
    return old;
  }
  return next;
}

const entriesOf = new WeakMap<object, [string, unknown][]>();
const NO_ENTRIES: [string, unknown][] = [];

/** The variables of a draft as ordered entries (a malformed block shows as none); same block, same array. */
export function variableEntries(draft: RecipeDraft): [string, unknown][] {
  const variables = draft.fields.variables;
  if (!isRecord(variables)) return NO_ENTRIES;
  let entries = entriesOf.get(variables);
  if (!entries) entriesOf.set(variables, (entries = Object.entries(variables)));
  return entries;
}

/** True when a step node shows its badge row: condition, on_error, id, or the error of its run. */
export function hasBadges(value: unknown, run?: NodeRun): boolean {
  return !!run?.outcome?.error || (isRecord(value) && (value.condition !== undefined || value.on_error !== undefined || value.id !== undefined));
}

/** Heights of the chain's nodes, start node first. */
export function chainHeights(input: Pick<GraphInput, "draft" | "issues" | "runs">): number[] {
  const { draft, issues, runs } = input;
  return [
    startHeight(variableEntries(draft).length, issues.recipe.length),
    ...draft.steps.map((step) => {
      const run = runs.get(step.uid);
      return stepHeight({
        badges: hasBadges(step.value, run),
        errors: issues.steps.get(step.uid)?.length ?? 0,
        thumbnail: !!screenshotUrl(run?.outcome?.result),
      });
    }),
  ];
}

/** The nodes of the chain, laid out, reusing unchanged node objects from `cache` (and refilling it). */
export function buildNodes(input: GraphInput, cache: NodeCache): ChainNode[] {
  const { draft, issues, runs, selection, moved } = input;
  const heights = chainHeights(input);
  const positions = layoutChain(heights);
  const at = (id: string, i: number) => moved.get(id) ?? positions[i];
  const start: StartNode = reuse(cache, {
    id: START_ID,
    type: "start",
    position: at(START_ID, 0),
    width: NODE_WIDTH,
    height: heights[0],
    selected: selection.has(START_ID),
    deletable: false,
    data: { fields: draft.fields, variables: variableEntries(draft), issues: issues.recipe },
  });
  const nodes: ChainNode[] = [start];
  draft.steps.forEach((step, i) => {
    const run = runs.get(step.uid);
    const data: StepNodeData = { uid: step.uid, index: i, value: step.value, issues: issues.steps.get(step.uid), run, thumbnail: screenshotUrl(run?.outcome?.result) };
    const node: StepNode = { id: step.uid, type: "step", position: at(step.uid, i + 1), width: NODE_WIDTH, height: heights[i + 1], selected: selection.has(step.uid), deletable: false, data };
    nodes.push(reuse(cache, node));
  });
  // Right under the last node, in its column (never wrapped to a column of its own).
  const last = positions[positions.length - 1];
  const addAt = { x: last.x, y: last.y + heights[heights.length - 1] + ROW_GAP };
  const add: AddNode = { id: ADD_ID, type: "add", position: addAt, width: NODE_WIDTH, height: ADD_HEIGHT, selectable: false, draggable: false, deletable: false, data: { index: draft.steps.length } };
  nodes.push(reuse(cache, add));
  cache.clear();
  for (const node of nodes) cache.set(node.id, node);
  return nodes;
}

/** The last graph's edges by id, to reuse unchanged ones. */
export type EdgeCache = Map<string, Edge>;

/**
 * Edges from each node of the chain to the next; `data.index` is where "+" inserts a step.
 * Unchanged edges are the same objects as last time (see `cache`), so typing does not re-render them.
 */
export function buildEdges(draft: RecipeDraft, runs: ReadonlyMap<string, NodeRun>, cache: EdgeCache = new Map()): Edge[] {
  const ids = [START_ID, ...draft.steps.map((s) => s.uid)];
  const edges: Edge[] = ids.slice(1).map((target, i) => ({
    id: `e-${ids[i]}-${target}`,
    source: ids[i],
    target,
    type: "insert",
    data: { index: i },
    animated: runs.get(target)?.status === "running",
  }));
  edges.push({ id: "e-add", source: ids[ids.length - 1], target: ADD_ID, type: "default", className: "edge-to-add", selectable: false });
  const out = edges.map((edge) => {
    const old = cache.get(edge.id);
    const same = old && old.source === edge.source && old.target === edge.target && old.animated === edge.animated && (old.data as { index?: number } | undefined)?.index === (edge.data as { index?: number } | undefined)?.index;
    return same ? old : edge;
  });
  cache.clear();
  for (const edge of out) cache.set(edge.id, edge);
  return out;
}
