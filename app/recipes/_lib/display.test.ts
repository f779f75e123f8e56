/**
 * Pins what nodes show: param summaries, issues on the node (and field) they belong to, run
 * statuses per node while a run goes on, readable errors, and the tool picker's grouping.
 */
import { describe, expect, it } from "vitest";
import { readableError } from "./errors";
import { fieldIssues, indexIssues, parsePath } from "./issues";
import { formatDuration, nodeRuns, runCounts, screenshotUrl, type StepOutcome } from "./run-progress";
import { convertVariable, formatValue, summarizeParams, variableType } from "./summary";
import { groupTools, type ToolInfo } from "./tools";

describe("summaries", () => {
  it("writes params on one line with vectors and colours as tuples", () => {
    expect(summarizeParams({ name: "Ground", position: { x: 0, y: 0, z: 0 }, scale: { x: "{{ s }}", z: 2 } })).toBe(
      "name: Ground · position: (0, 0, 0) · scale: ({{ s }}, ·, 2)",
    );
    expect(summarizeParams({ color: { r: 1, g: 0, b: 0, a: 1 } })).toBe("color: rgba(1, 0, 0, 1)");
    expect(summarizeParams({})).toBe("no parameters");
    expect(summarizeParams(undefined)).toBe("no parameters");
    expect(summarizeParams({ a: "x".repeat(300) }).length).toBe(160);
    expect(formatValue({ a: { b: { c: 1 } } })).toBe("{a: {b: {…}}}");
  });

  it("types and converts variables", () => {
    expect(variableType(1)).toBe("number");
    expect(variableType("1")).toBe("text");
    expect(convertVariable("12", "number")).toBe(12);
    expect(convertVariable("abc", "number")).toBe(0);
    expect(convertVariable(12, "text")).toBe("12");
    expect(convertVariable("true", "boolean")).toBe(true);
  });
});

describe("issues", () => {
  it("parses engine paths, quoted keys included", () => {
    expect(parsePath('steps[2].params["my key"].x')).toEqual(["steps", 2, "params", "my key", "x"]);
    expect(parsePath("variables.n")).toEqual(["variables", "n"]);
    expect(parsePath("")).toEqual([]);
  });

  it("puts step issues on the step's node and the rest on the start node", () => {
    const issue = (path: string) => ({ path, line: 1, column: 1, message: path });
    const index = indexIssues([issue("steps[1].tool"), issue("name"), issue("steps[1].params.position.x"), issue("steps[9].tool")], ["a", "b"]);
    expect(index.steps.get("b")?.map((i) => i.path)).toEqual(["steps[1].tool", "steps[1].params.position.x"]);
    expect(index.recipe.map((i) => i.path)).toEqual(["name", "steps[9].tool"]);
    expect(fieldIssues(index.steps.get("b"), "params.position")).toHaveLength(1);
    expect(fieldIssues(index.steps.get("b"), "params.pos")).toHaveLength(0);
  });
});

describe("run progress", () => {
  const done = (status: StepOutcome["status"]): StepOutcome => ({ id: "x", name: "x", tool: "t", status, duration_ms: 1 });
  it("marks finished steps, the running one and the waiting ones", () => {
    const runs = nodeRuns({ status: "running", steps: [done("succeeded"), done("skipped")] }, ["a", "b", "c", "d"]);
    expect([...runs.values()].map((r) => r.status)).toEqual(["succeeded", "skipped", "running", "pending"]);
    expect(runCounts(runs)).toMatchObject({ succeeded: 1, skipped: 1, running: 1, pending: 1, failed: 0 });
  });

  it("leaves no step running once the run has ended", () => {
    const runs = nodeRuns({ status: "failed", steps: [done("failed")] }, ["a", "b"]);
    expect(runs.get("a")?.status).toBe("failed");
    expect(runs.has("b")).toBe(false);
  });

  it("accepts only screenshot URLs served by Kiln", () => {
    expect(screenshotUrl({ url: "/screenshots/0a1b-2c.png" })).toBe("/screenshots/0a1b-2c.png");
    expect(screenshotUrl({ url: "https://evil.example/x.png" })).toBeUndefined();
    expect(screenshotUrl(null)).toBeUndefined();
  });
});

describe("readableError", () => {
  it("turns zod issue lists into field messages", () => {
    const message = JSON.stringify([{ path: ["name"], message: "a recipe name must not be empty" }]);
    expect(readableError({ message, data: { httpStatus: 500 } }).message).toBe("name: a recipe name must not be empty");
  });

  it("keeps Kiln's own sentences and explains refusals and network failures", () => {
    expect(readableError({ message: 'A project recipe named "x" exists.' }).message).toBe('A project recipe named "x" exists.');
    expect(readableError({ message: "x", meta: { response: { status: 401 } } })).toMatchObject({ status: 401 });
    expect(readableError(new TypeError("Failed to fetch")).message).toMatch(/not answering/);
  });
});

describe("groupTools", () => {
  const tools: ToolInfo[] = [
    { name: "save_version", group: "version_control", description: "Save the state", input: {} },
    { name: "take_screenshot", group: "editor", description: "Render a PNG", input: {} },
    { name: "create_scene", group: "editor", description: "A new scene", input: {} },
    { name: "set_camera", group: "editor", description: "Place the camera for a screenshot", input: {} },
  ];
  it("groups in catalogue order and ranks name matches first", () => {
    expect(groupTools(tools).map((g) => g.title)).toEqual(["Editor", "Version control"]);
    const found = groupTools(tools, "screenshot");
    expect(found.map((g) => g.tools.map((t) => t.name))).toEqual([["take_screenshot", "set_camera"]]);
    expect(groupTools(tools, "take scr")[0].tools[0].name).toBe("take_screenshot");
    expect(groupTools(tools, "nothing like it")).toEqual([]);
  });
});

describe("durations", () => {
  it("are written the same on nodes, the side panel and the run history: tenths below 10 ms", () => {
    expect([0.08, 0.1, 9.94, 9.96, 10, 12.6, 1234.4].map(formatDuration)).toEqual(["0.1 ms", "0.1 ms", "9.9 ms", "10 ms", "10 ms", "13 ms", "1234 ms"]);
  });
});
