/**
 * The tool catalogue as the builder uses it: the page passes each tool's name, group, description
 * and input JSON Schema from the registry (the same data as `GET /tools`); the picker groups and
 * searches them.
 */

/** One tool of the catalogue, as the builder needs it. */
export interface ToolInfo {
  name: string;
  group: string;
  description: string;
  input: Record<string, unknown>;
}

/** Group titles in picker order. */
export const GROUP_TITLES: Record<string, string> = {
  editor: "Editor",
  version_control: "Version control",
  transactions: "Transactions",
  pipeline: "Pipeline",
  recipes: "Recipes",
  teams: "Teams",
};

/** A group of tools in the picker. */
export interface ToolGroup {
  group: string;
  title: string;
  tools: ToolInfo[];
}

/** How well a tool matches a query: 0 = not at all; name prefix beats name part beats description. */
export function toolScore(tool: ToolInfo, query: string): number {
  const words = query.toLowerCase().trim().split(/[\s_]+/).filter(Boolean);
  if (words.length === 0) return 1;
  const name = tool.name.toLowerCase();
  const spaced = name.replace(/_/g, " ");
  const text = `${spaced} ${tool.description.toLowerCase()}`;
  if (!words.every((w) => text.includes(w))) return 0;
  const joined = words.join("_");
  if (name.startsWith(joined)) return 4;
  if (name.includes(joined)) return 3;
  return words.every((w) => spaced.includes(w)) ? 2 : 1;
}

/** Tools matching `query`, grouped in catalogue group order, best matches first in each group. */
export function groupTools(tools: readonly ToolInfo[], query = ""): ToolGroup[] {
  const order = Object.keys(GROUP_TITLES);
  const groups = new Map<string, { tool: ToolInfo; score: number; index: number }[]>();
  tools.forEach((tool, index) => {
    const score = toolScore(tool, query);
    if (score === 0) return;
    groups.set(tool.group, [...(groups.get(tool.group) ?? []), { tool, score, index }]);
  });
  return [...groups.entries()]
    .sort(([a], [b]) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99))
    .map(([group, list]) => ({
      group,
      title: GROUP_TITLES[group] ?? group,
      tools: list.sort((a, b) => b.score - a.score || a.index - b.index).map((x) => x.tool),
    }));
}
