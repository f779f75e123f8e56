/** Any address with no page (a malformed compare range, an unknown version): say so, with the way back. */
import Link from "next/link";

export default function NotFound() {
  return (
    <main className="page">
      <h1>Not found</h1>
      <p>There is no page at this address.</p>
      <p><Link href="/">Home</Link> · <Link href="/versions">Versions</Link> · <Link href="/recipes">Recipes</Link></p>
    </main>
  );
}
