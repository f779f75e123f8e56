/** undo and redo: behaviour lives in server/workspace/undo.ts; docs/undo.md says what they do. */
import { z } from "zod";
import { redoLast, undoLast } from "../workspace/undo";
import { defineTool } from "./define-tool";

const undoOut = z.object({
  seq: z.number().describe("The log entry that records this undo or redo."),
  steps: z.array(z.number()).describe("The log entries whose effect was undone or redone (several for a committed transaction)."),
  tools: z.array(z.string()),
  changed_records: z.number(),
  can_undo: z.boolean(),
  can_redo: z.boolean(),
});

export const undo = defineTool({
  name: "undo",
  group: "editor",
  access: "write",
  description:
    "Undo the last change of the current branch (a tool call, a live edit, a redo, or a whole committed transaction), whoever made it, " +
    "as a new history entry of inverse changes. Inside an open transaction, only its own calls can be undone.",
  input: z.strictObject({}),
  output: undoOut,
  handler: (_input, { kiln }) => undoLast(kiln),
});

export const redo = defineTool({
  name: "redo",
  group: "editor",
  access: "write",
  description: "Redo the last undone change of the current branch, as a new history entry; any other change since the undo ends what can be redone.",
  input: z.strictObject({}),
  output: undoOut,
  handler: (_input, { kiln }) => redoLast(kiln),
});
