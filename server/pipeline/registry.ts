/**
 * Transfers running in this process, for get_pipeline_status. Kept on globalThis because Next.js
 * may load this module once per route bundle, and every copy must see the same transfers.
 */

/** A running transfer as get_pipeline_status shows it. */
export interface ActiveTransfer {
  transfer_id: string;
  source_app: string;
  target_app: string;
  asset: string;
  format: string;
  started_at: string;
  /** exporting, writing or importing. */
  stage: string;
}

const KEY = Symbol.for("kiln.pipeline.active");
type Holder = { [KEY]?: Map<string, ActiveTransfer> };

/** The process-wide map of running transfers by id. */
export function activeTransfers(): Map<string, ActiveTransfer> {
  const holder = globalThis as Holder;
  return (holder[KEY] ??= new Map());
}
