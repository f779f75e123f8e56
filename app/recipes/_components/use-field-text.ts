"use client";
/**
 * The text a field shows while it is being typed in. A number field holding "1." must not jump
 * to "1" when 1 is stored, yet must follow the value when it changes from elsewhere (undo, the
 * YAML panel): the text is reset only when it no longer means the stored value.
 */
import { useEffect, useState } from "react";
import { sameValue } from "../_lib/serialize";

/** [text, setText] for a field storing `value`; `parse` says what a text means. */
export function useFieldText(value: unknown, format: (v: unknown) => string, parse: (text: string) => unknown) {
  const [text, setText] = useState(() => format(value));
  useEffect(() => {
    setText((current) => (sameValue(parse(current), value) ? current : format(value)));
    // format/parse are fixed per field kind; only the stored value decides.
  }, [value]);
  return [text, setText] as const;
}
