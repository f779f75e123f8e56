/** Starts Kiln (migrations, working state) when the server starts, not on the first request. */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { getKiln } = await import("./server/runtime");
    try {
      await getKiln();
      // The pipeline's worker thread loads its readers now rather than during the first import.
      const { warmPool } = await import("./server/pipeline/worker/pool");
      warmPool();
    } catch (e) {
      // A service that cannot open its data must not answer as if it could.
      console.error("kiln: could not start:", e);
      process.exit(1);
    }
  }
}
