/**
 * Work that a crash cut off, found at start-up by the project's owner: recipe runs and transfers
 * still `running` in the database cannot be running (no other process may own the project), so
 * they are marked `interrupted` with the step or stage they had reached.
 */
import type { Db } from "../db/client";
import { markInterruptedRuns } from "../tools/recipe-runs";

/** Marks interrupted transfers, keeping the stage each had reached. Returns how many. */
export async function markInterruptedTransfers(db: Db): Promise<number> {
  const rows = await db.transfer.findMany({ where: { status: "running" }, select: { id: true, stage: true } });
  for (const row of rows) {
    const stage = row.stage ?? "exporting";
    const error = { code: "INTERRUPTED", message: `The Kiln process stopped (crash or kill) while ${stage}; the transfer was cut off there.`, stage };
    await db.transfer.update({ where: { id: row.id }, data: { status: "interrupted", error: JSON.stringify(error) } });
  }
  return rows.length;
}

/** Marks everything a crash left running; logs what it found. */
export async function markInterrupted(db: Db): Promise<void> {
  const runs = await markInterruptedRuns(db);
  const transfers = await markInterruptedTransfers(db);
  if (runs || transfers) console.error(`kiln: marked ${runs} recipe run(s) and ${transfers} transfer(s) interrupted (cut off when the previous process stopped)`);
}
