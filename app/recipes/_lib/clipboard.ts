/**
 * Steps on the clipboard are YAML (a list of step mappings), so they paste into a text editor as
 * recipe text and text copied from a recipe file pastes onto the canvas: a list of steps, one
 * step, or a whole recipe (its steps) are all understood.
 */
import { parse } from "yaml";
import { isRecord } from "./draft";

const looksLikeStep = (v: unknown) => isRecord(v) && (typeof v.tool === "string" || typeof v.name === "string");

/** The steps in clipboard text, or undefined when it holds none. */
export function stepsFromClipboard(text: string): unknown[] | undefined {
  if (!text.trim() || text.length > 1024 * 1024) return undefined;
  let value: unknown;
  try {
    value = parse(text, { maxAliasCount: 100 });
  } catch {
    return undefined;
  }
  if (Array.isArray(value) && value.length > 0 && value.every(looksLikeStep)) return value;
  if (isRecord(value) && Array.isArray(value.steps) && value.steps.every(looksLikeStep) && value.steps.length > 0) return value.steps;
  if (looksLikeStep(value)) return [value];
  return undefined;
}
