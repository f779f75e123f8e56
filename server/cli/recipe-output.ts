/**
 * What `kiln --run-recipe` prints for people: one line per step as it finishes (symbol, name,
 * tool, time), the reason under a failed or skipped step, a note under a step that switched an
 * app's active scene, then a summary. Colours only when
 * the stream is a terminal and NO_COLOR is not set, so piped output stays plain text.
 */
import { activeSceneChange, describeActiveSceneChange, type RecipeIssue, type RecipeRun, type StepRecord } from "../recipes";

type Paint = (code: string, text: string) => string;

/** ANSI colouring for `stream`, or plain text when it is not a TTY (or NO_COLOR is set). */
export function painter(stream: NodeJS.WriteStream): Paint {
  const on = stream.isTTY === true && !process.env.NO_COLOR;
  return on ? (code, text) => `\u001b[${code}m${text}\u001b[0m` : (_code, text) => text;
}

const GREEN = "32";
const RED = "31";
const YELLOW = "33";
const DIM = "2";
const BOLD = "1";

/** Milliseconds for people: one decimal below 10 ms, whole numbers above, seconds from 10 s. */
export function formatMs(ms: number): string {
  if (ms < 10) return `${ms.toFixed(1)} ms`;
  if (ms < 10_000) return `${Math.round(ms)} ms`;
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * `file:line:column: message` lines, as compilers print them (editors can jump to them):
 * errors and warnings together, in the order they appear in the file.
 */
export function formatIssues(file: string, errors: RecipeIssue[], warnings: RecipeIssue[]): string[] {
  const all = [...errors.map((issue) => ({ issue, prefix: "" })), ...warnings.map((issue) => ({ issue, prefix: "warning: " }))];
  all.sort((a, b) => a.issue.line - b.issue.line || a.issue.column - b.issue.column);
  return all.map(({ issue: i, prefix }) => `${file}:${i.line}:${i.column}: ${prefix}${i.path ? `${i.path}: ` : ""}${i.message}`);
}

/** Prints step lines aligned for the recipe's own names and tools. */
export function stepPrinter(steps: { name: string; tool: string }[], write: (line: string) => void, paint: Paint) {
  const nameWidth = Math.min(40, Math.max(...steps.map((s) => s.name.length)));
  const toolWidth = Math.max(...steps.map((s) => s.tool.length));
  return (step: StepRecord) => {
    const symbol = step.status === "succeeded" ? paint(GREEN, "✓") : step.status === "failed" ? paint(RED, "✗") : paint(YELLOW, "–");
    const head = `${symbol} ${step.name.padEnd(nameWidth)}  ${paint(DIM, step.tool.padEnd(toolWidth))}`;
    if (step.status === "skipped") {
      write(`${head}  ${paint(DIM, `skipped: ${step.reason ?? "not run"}`)}`);
      return;
    }
    write(`${head}  ${formatMs(step.duration_ms).padStart(8)}`);
    if (step.error) write(`    ${paint(RED, `${step.error.code}: ${step.error.message}`)}`);
    const switched = activeSceneChange(0, step);
    if (switched) write(`    ${paint(YELLOW, describeActiveSceneChange(switched))}`);
  };
}

const TRANSACTION_WORDS: Record<string, string> = {
  committed: "committed",
  rolled_back: "rolled back: the scene is as it was before the recipe",
  not_started: "could not begin, so no step ran",
  commit_failed: "commit failed",
  rollback_failed: "rollback failed: the scene may hold part of the run",
};

/** The closing lines: the transaction outcome (if any) and a one-line summary. */
export function summaryLines(run: RecipeRun & { run_id: string | null }, paint: Paint, where: string): string[] {
  const lines: string[] = [];
  if (run.transaction) {
    const { outcome, error } = run.transaction;
    const text = `transaction ${TRANSACTION_WORDS[outcome] ?? outcome}${error ? ` (${error.code}: ${error.message})` : ""}`;
    lines.push(outcome === "committed" ? paint(DIM, text) : paint(RED, text));
  }
  const count = (status: StepRecord["status"]) => run.steps.filter((s) => s.status === status).length;
  const counts = `${count("succeeded")} succeeded, ${count("failed")} failed, ${count("skipped")} skipped`;
  const ok = run.status === "succeeded";
  const verdict = ok ? paint(GREEN, `${run.recipe} succeeded`) : paint(RED, `${run.recipe} failed`);
  const id = run.run_id ? `run ${run.run_id}` : "not recorded in the service's run history";
  lines.push(paint(BOLD, `${ok ? "✓" : "✗"} `) + `${verdict}: ${counts} in ${formatMs(run.duration_ms)} ${paint(DIM, `(${where}; ${id})`)}`);
  return lines;
}
