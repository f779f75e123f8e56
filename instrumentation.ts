/** Starts Kiln (migrations, working state) when the server starts, not on the first request. */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { getKiln } = await import("./server/runtime");
    try {
      await getKiln();
      // The pipeline's worker thread loads its readers before the first import arrives, but only
      // once start-up has settled: on a small machine it would otherwise compete with the first answers.
      const { warmPool } = await import("./server/pipeline/worker/pool");
      setTimeout(warmPool, 5000).unref();
    } catch (e) {
      // A service that cannot open its data must not answer as if it could.
      console.error("kiln: could not start:", e);
      process.exit(1);
    }
  }
}
