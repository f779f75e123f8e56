/**
 * One-line summaries for the canvas: a step's params ("name: Ground · type: Plane · position:
 * (0, 0, 0)"), a variable's value, a condition. Vectors and colours read as tuples, placeholders
 * as written, nested values compactly; the CSS cuts the line with an ellipsis.
 */
import { isRecord } from "./draft";

const MAX_LENGTH = 160;

const isVector = (v: Record<string, unknown>) => {
  const keys = Object.keys(v);
  return keys.length > 0 && keys.every((k) => k === "x" || k === "y" || k === "z");
};
const isColor = (v: Record<string, unknown>) => {
  const keys = Object.keys(v);
  return keys.length >= 3 && keys.every((k) => k === "r" || k === "g" || k === "b" || k === "a");
};

/** A value as a short text: `(0, 10, -20)` for vectors, `rgba(1, 0, 0, 1)` for colours. */
export function formatValue(value: unknown, depth = 0): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "string") return value;
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return depth > 1 ? "[…]" : `[${value.map((v) => formatValue(v, depth + 1)).join(", ")}]`;
  if (!isRecord(value)) return String(value);
  if (isVector(value)) return `(${["x", "y", "z"].map((k) => (k in value ? formatValue(value[k], depth + 1) : "·")).join(", ")})`;
  if (isColor(value)) return `rgba(${["r", "g", "b", "a"].filter((k) => k in value).map((k) => formatValue(value[k], depth + 1)).join(", ")})`;
  if (depth > 1) return "{…}";
  return `{${Object.entries(value).map(([k, v]) => `${k}: ${formatValue(v, depth + 1)}`).join(", ")}}`;
}

/** The params of a step on one line; "no parameters" when there are none. */
export function summarizeParams(params: unknown): string {
  if (params === undefined || params === null) return "no parameters";
  if (!isRecord(params)) return formatValue(params);
  const entries = Object.entries(params);
  if (entries.length === 0) return "no parameters";
  const text = entries.map(([key, value]) => `${key}: ${formatValue(value)}`).join(" · ");
  return text.length > MAX_LENGTH ? `${text.slice(0, MAX_LENGTH - 1)}…` : text;
}

/** The type a variable's default has, as the builder's type picker names it. */
export type VariableType = "text" | "number" | "boolean";

/** The type of a variable's value; anything that is not a number or boolean counts as text. */
export function variableType(value: unknown): VariableType {
  return typeof value === "number" ? "number" : typeof value === "boolean" ? "boolean" : "text";
}

/** Converts a variable's value to another type, keeping what can be kept ("12" ⇄ 12). */
export function convertVariable(value: unknown, type: VariableType): string | number | boolean {
  if (type === "boolean") return value === true || value === "true" || (typeof value === "number" && value !== 0);
  if (type === "number") {
    const n = typeof value === "number" ? value : Number(value);
    return Number.isFinite(n) && String(value).trim() !== "" ? n : 0;
  }
  return value === undefined || value === null ? "" : String(value);
}
