/**
 * What a param field's text means. Every field accepts a `{{ placeholder }}` (a variable or an
 * earlier step's result) in place of a value, so a number field is a text box: "12" is the number
 * 12, "{{ size }}" stays text, "" removes the parameter, and anything else is kept as typed (and
 * reported by validation) rather than silently lost.
 */
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";

/** True when the text holds a `{{ … }}` placeholder. */
export function hasPlaceholder(text: string): boolean {
  return /\{\{[^}]*\}\}/.test(text);
}

/** Text of a number field → the value to store (undefined: remove the parameter). */
export function parseNumberField(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  if (hasPlaceholder(trimmed)) return text;
  const n = Number(trimmed);
  return Number.isFinite(n) && /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(trimmed) ? n : text;
}

/** Text of a text field → the value to store ("" removes an optional parameter). */
export function parseTextField(text: string, required: boolean): string | undefined {
  return text === "" && !required ? undefined : text;
}

/** A stored value as a field's text. */
export function formatField(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

/** A message when a number field's value is neither a number nor a placeholder. */
export function numberProblem(value: unknown, spec: { integer?: boolean; minimum?: number; maximum?: number }): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string") return hasPlaceholder(value) ? undefined : "a number or a {{ placeholder }}";
  if (typeof value !== "number") return "a number";
  if (spec.integer && !Number.isInteger(value)) return "a whole number";
  if (spec.minimum !== undefined && value < spec.minimum) return `at least ${spec.minimum}`;
  if (spec.maximum !== undefined && value > spec.maximum) return `at most ${spec.maximum}`;
  return undefined;
}

/** A value as YAML text for the free-form editor (flow style, one line when short). */
export function toYamlText(value: unknown): string {
  if (value === undefined) return "";
  return stringifyYaml(value, { lineWidth: 0, collectionStyle: "flow" }).trimEnd();
}

/** YAML text of the free-form editor → value; an error message when it does not parse. */
export function fromYamlText(text: string): { value?: unknown; error?: string } {
  if (text.trim() === "") return { value: undefined };
  try {
    return { value: parseYaml(text, { maxAliasCount: 100 }) };
  } catch (e) {
    return { error: (e as Error).message.split("\n")[0] };
  }
}

/** 0..1 colour components → "#rrggbb" (placeholders and bad values count as 0). */
export function toHex(color: Record<string, unknown>): string {
  const part = (k: string) => {
    const v = typeof color[k] === "number" ? Math.min(1, Math.max(0, color[k] as number)) : 0;
    return Math.round(v * 255).toString(16).padStart(2, "0");
  };
  return `#${part("r")}${part("g")}${part("b")}`;
}

/** "#rrggbb" → r, g, b in 0..1, rounded to 3 decimals. */
export function fromHex(hex: string): { r: number; g: number; b: number } {
  const n = (i: number) => Math.round((parseInt(hex.slice(i, i + 2), 16) / 255) * 1000) / 1000;
  return { r: n(1), g: n(3), b: n(5) };
}
