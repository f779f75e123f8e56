/**
 * validate_recipe issues → where the builder shows them. An issue's path (`steps[2].params.
 * position.x`) names the step by index at the time the text was validated; the uids of that
 * moment turn it into a node, so issues stay on the right node while later edits are checked.
 */

/** One issue as validate_recipe returns it. */
export interface Issue {
  path: string;
  line: number;
  column: number;
  message: string;
}

/** Issues grouped for display. */
export interface IssueIndex {
  /** Issues of the recipe's own fields and variables (shown on the start node). */
  recipe: Issue[];
  /** Issues by step uid. */
  steps: Map<string, Issue[]>;
}

/**
 * `steps[2].params["my key"].x` → ["steps", 2, "params", "my key", "x"] (the inverse of the
 * engine's formatPath).
 */
export function parsePath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const pattern = /\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\.?([^.[\]]+)/g;
  for (const match of path.matchAll(pattern)) {
    if (match[1] !== undefined) out.push(Number(match[1]));
    else if (match[2] !== undefined) out.push(JSON.parse(match[2]) as string);
    else if (match[3] !== undefined) out.push(match[3]);
  }
  return out;
}

/** Groups issues by the node they belong to; `uids` are the step uids when the text was made. */
export function indexIssues(issues: readonly Issue[], uids: readonly string[]): IssueIndex {
  const index: IssueIndex = { recipe: [], steps: new Map() };
  for (const issue of issues) {
    const [root, position] = parsePath(issue.path);
    const uid = root === "steps" && typeof position === "number" ? uids[position] : undefined;
    if (uid === undefined) {
      index.recipe.push(issue);
      continue;
    }
    index.steps.set(uid, [...(index.steps.get(uid) ?? []), issue]);
  }
  return index;
}

/** The part of an issue's path inside its step: `params.position.x`, `condition`, "" for the step. */
export function stepField(issue: Issue): string {
  const segments = parsePath(issue.path).slice(2);
  return segments.map(String).join(".");
}

/** Issues of one form field: the field itself and anything under it. */
export function fieldIssues(issues: readonly Issue[] | undefined, field: string): Issue[] {
  return (issues ?? []).filter((issue) => {
    const at = stepField(issue);
    return at === field || at.startsWith(`${field}.`);
  });
}
