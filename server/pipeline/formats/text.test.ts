// Invariant: formatFloat is exactly String(Number(v.toPrecision(9))) (shortest 9-significant-digit
// decimal) for every kind of value, and restores any float32 exactly; writeFloat writes the same
// text as bytes (at worst another last digit that restores the same float32); parseNumber reads
// bytes exactly as Number reads the text.
import { describe, expect, it } from "vitest";
import { ByteWriter, formatFloat, parseNumber, writeFloat } from "./text";

const reference = (v: number) => (Number.isInteger(v) && Math.abs(v) < 1e15 ? String(v) : String(Number(v.toPrecision(9))));

/** Deterministic pseudo-random numbers in [0, 1). */
function random(seed: number): () => number {
  let x = seed;
  return () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
}

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

describe("writeFloat", () => {
  const buffer = new Uint8Array(64);
  const written = (v: number) => new TextDecoder().decode(buffer.subarray(0, writeFloat(buffer, 0, v)));

  it("writes round, integer, tiny and huge values as formatFloat does", () => {
    const cases: [number, string][] = [[1, "1"], [0.5, "0.5"], [-2.25, "-2.25"], [0, "0"], [-0, "0"], [-7, "-7"], [2147483648, "2147483648"],
      [0.1, "0.1"], [1e-6, "0.000001"], [1e-7, "1e-7"], [123456789.5, "123456790"], [999999999.7, "1000000000"], [99.9999999996, "100"], [1e21, "1e+21"]];
    for (const [v, text] of cases) expect(written(v), String(v)).toBe(text);
  });

  it("restores the same float32 as formatFloat for 100,000 random values from 1e-12 to 1e12", () => {
    const next = random(7);
    const wrong: string[] = []; // one expect per value would take seconds
    let otherText = 0;
    for (let i = 0; i < 100_000; i++) {
      const v = Math.fround((next() - 0.5) * 10 ** Math.floor(next() * 25 - 12));
      const text = written(v);
      if (Math.fround(Number(text)) !== Math.fround(Number(formatFloat(v))) || Math.fround(Number(text)) !== v) wrong.push(`${v}: ${text}`);
      if (text !== formatFloat(v)) otherText++;
    }
    expect(wrong).toEqual([]);
    expect(otherText, "texts differing from formatFloat's (near-ties only)").toBeLessThan(100);
  });
});

describe("ByteWriter", () => {
  it("grows as lines are added and encodes them as UTF-8", () => {
    const out = new ByteWriter(4);
    out.line("o Würfel ✓");
    out.line("v 1 2 3");
    expect(new TextDecoder().decode(out.result())).toBe("o Würfel ✓\nv 1 2 3\n");
  });
});

describe("parseNumber", () => {
  const parsed = (text: string) => {
    const bytes = new TextEncoder().encode(` ${text} `); // not at the buffer's edges
    return parseNumber(bytes, 1, bytes.length - 1);
  };

  it("reads decimals, exponents, signs and non-decimals as Number does", () => {
    const texts = ["0", "-0", "-0.0", "+1.5", ".5", "5.", "1e-7", "1.5E+3", "-2.25e2", "007", "0.000001234", "1e22", "1e-22", "123456789012345",
      "0.1234567890123456789", "12345678901234567", "1e23", "1e-23", "1e400", "1e-400", "1e", "e5", ".", "-", "", "0x10", "Infinity", "1_0", "1.2.3", "é"];
    for (const text of texts) expect(Object.is(parsed(text), Number(text)), `"${text}" → ${parsed(text)}`).toBe(true);
  });

  it("reads random 15- to 17-digit decimals exactly", () => {
    const next = random(11);
    const wrong: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const text = ((next() - 0.5) * 10 ** Math.floor(next() * 30 - 15)).toPrecision(15 + (i % 3));
      if (parsed(text) !== Number(text)) wrong.push(text);
    }
    expect(wrong).toEqual([]);
  });
});
