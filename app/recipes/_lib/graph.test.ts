/**
 * Pins the canvas graph: one node per step after the start node, in order, laid out without
 * overlaps; unchanged nodes and edges are the same objects from one edit to the next (what keeps
 * typing fast on big recipes); issues and run states land on their nodes.
 */
import { describe, expect, it } from "vitest";
import { emptyDraft } from "./draft";
import { addStep, setParam } from "./edits";
import { ADD_ID, START_ID, buildEdges, buildNodes, chainHeights, type EdgeCache, type NodeCache, type StepNode } from "./graph";
import { indexIssues } from "./issues";

function recipe(steps: number) {
  let d = emptyDraft();
  for (let i = 0; i < steps; i++) d = addStep(d, i, i % 2 ? "create_light" : "take_screenshot").draft;
  return d;
}
const none = { issues: indexIssues([], []), runs: new Map(), selection: new Set<string>(), moved: new Map() };

describe("buildNodes", () => {
  it("puts the start node first, then the steps in order, then the add node under the last", () => {
    const draft = recipe(3);
    const nodes = buildNodes({ draft, ...none }, new Map());
    expect(nodes.map((n) => n.id)).toEqual([START_ID, ...draft.steps.map((s) => s.uid), ADD_ID]);
    const heights = chainHeights({ draft, ...none });
    nodes.slice(0, 4).forEach((n, i) => expect(n.height).toBe(heights[i]));
    expect(nodes[4].position.y).toBeGreaterThan(nodes[3].position.y + heights[3]);
    expect(nodes[4].position.x).toBe(nodes[3].position.x);
  });

  it("reuses the nodes and edges an edit did not touch", () => {
    const draft = recipe(50);
    const cache: NodeCache = new Map();
    const edgeCache: EdgeCache = new Map();
    const before = buildNodes({ draft, ...none }, cache);
    const edgesBefore = buildEdges(draft, new Map(), edgeCache);
    const edited = setParam(draft, draft.steps[10].uid, ["width"], 640);
    const after = buildNodes({ draft: edited, ...none }, cache);
    const edgesAfter = buildEdges(edited, new Map(), edgeCache);
    const changed = after.filter((n, i) => n !== before[i]).map((n) => n.id);
    expect(changed).toEqual([draft.steps[10].uid]);
    expect(edgesAfter.every((e, i) => e === edgesBefore[i])).toBe(true);
  });

  it("puts issues and run states on their steps and grows those nodes", () => {
    const draft = recipe(2);
    const [a, b] = draft.steps.map((s) => s.uid);
    const issues = indexIssues([{ path: "steps[1].params.width", line: 1, column: 1, message: "too small" }], [a, b]);
    const runs = new Map([[a, { status: "succeeded" as const, outcome: { id: "a", name: "a", tool: "take_screenshot", status: "succeeded" as const, result: { url: "/screenshots/0a-1.png" }, duration_ms: 3 } }]]);
    const plain = chainHeights({ draft, issues: none.issues, runs: new Map() });
    const nodes = buildNodes({ draft, ...none, issues, runs }, new Map()) as StepNode[];
    expect(nodes[1].data.thumbnail).toBe("/screenshots/0a-1.png");
    expect(nodes[2].data.issues?.[0].message).toBe("too small");
    expect(nodes[1].height).toBeGreaterThan(plain[1]);
    expect(nodes[2].height).toBeGreaterThan(plain[2]);
    expect(buildEdges(draft, new Map([[b, { status: "running" as const }]])).find((e) => e.target === b)?.animated).toBe(true);
  });
});
