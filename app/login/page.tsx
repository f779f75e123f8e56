/**
 * `/login`: where a browser enters KILN_TOKEN when the service runs with one. The form posts to
 * /api/session, which sets an HttpOnly session cookie and sends the browser on to `next`. The
 * page shows nothing about the service itself.
 */
export const dynamic = "force-dynamic";
export const metadata = { title: "Kiln: access token" };

export default async function Login({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const next = typeof params.next === "string" ? params.next : "/";
  return (
    <main className="page">
      <div className="brand"><h1>Kiln</h1></div>
      <form className="card token-login" method="post" action="/api/session">
        <p>This Kiln requires an access token (<code>KILN_TOKEN</code>). It is kept as a cookie for this browser session.</p>
        {params.error ? <p role="alert" className="error">That is not this Kiln&apos;s access token.</p> : null}
        <input type="hidden" name="next" value={next} />
        <label htmlFor="kiln-token">Access token</label>{" "}
        <input id="kiln-token" name="token" type="password" autoComplete="current-password" autoFocus required />{" "}
        <button type="submit" className="primary">Use token</button>
      </form>
    </main>
  );
}
