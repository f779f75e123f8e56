// Invariant: formatFloat is exactly String(Number(v.toPrecision(9))) (shortest 9-significant-digit
// decimal) for every kind of value, and restores any float32 exactly.
import { describe, expect, it } from "vitest";
import { formatFloat } from "./text";

const reference = (v: number) => (Number.isInteger(v) && Math.abs(v) < 1e15 ? String(v) : String(Number(v.toPrecision(9))));

describe("formatFloat", () => {
  it("matches the reference on round, tiny, huge, negative and random values", () => {
    const values = [0, -0, 1, -1, 0.5, 0.1, -0.25, 1e-7, 1.5e-7, 123456789.5, 1e21, 1.23e15 + 0.5, 9.9999999995, 0.000123456789, -3.4e38, Number.MIN_VALUE];
    let x = 12345;
    for (let i = 0; i < 20000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      values.push(Math.fround(((x / 2147483648) - 0.5) * 10 ** ((i % 24) - 12)));
    }
    for (const v of values) expect(formatFloat(v), String(v)).toBe(reference(v));
  });

  it("restores float32 values exactly", () => {
    for (const v of [0.1, 1 / 3, 123.456, -9.87654e-5].map(Math.fround)) expect(Math.fround(Number(formatFloat(v)))).toBe(v);
  });
});
