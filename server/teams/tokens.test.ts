// Invariant: a token's lifetime is a count and a unit (h, d, w, m, y) up to 10 years, or never.
import { describe, expect, it } from "vitest";
import { parseExpiry } from "./tokens";

describe("parseExpiry", () => {
  it("reads counts with units, and never", () => {
    expect(parseExpiry("30d")).toBe(30 * 86400);
    expect(parseExpiry("12h")).toBe(12 * 3600);
    expect(parseExpiry(" 1Y ")).toBe(365 * 86400);
    expect(parseExpiry("never")).toBeNull();
  });

  it("refuses anything else with INVALID_PARAMS", () => {
    for (const bad of ["", "30", "0d", "-1d", "soon", "11y", "30 days"]) expect(() => parseExpiry(bad)).toThrow(/not a lifetime/);
  });
});
