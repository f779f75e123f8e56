/** A recipe of `steps` create_gameobject steps (about 89 bytes each), as authored YAML text. */
export function bigRecipeYaml(name: string, steps: number): string {
  const lines = [`name: ${name}`, "description: many steps", "variables:", "  size: 2", "steps:"];
  for (let i = 0; i < steps; i++) {
    lines.push(
      `  - name: Cube ${i}`,
      "    tool: create_gameobject",
      `    params: { name: "Cube${i}", type: Cube }`,
    );
  }
  return `${lines.join("\n")}\n`;
}
