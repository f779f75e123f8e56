/** Starts Kiln (migrations, working state) when the server starts, not on the first request. */
export async function register() {
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { getKiln } = await import("./server/runtime");
    await getKiln();
  }
}
