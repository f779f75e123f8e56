"use client";
/** The bar at the top of every page: where you are, and the other pages one Tab away. */
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useViewer } from "../_lib/viewer";
import { SignOut } from "./sign-out";

const PAGES = [
  { href: "/", label: "Home" },
  { href: "/scene", label: "Scene" },
  { href: "/versions", label: "Versions" },
  { href: "/pipeline", label: "Pipeline" },
  { href: "/recipes", label: "Recipes" },
] as const;

export function SiteNav() {
  const path = usePathname() ?? "/";
  const viewer = useViewer();
  const team = viewer.mode === "team" && viewer.name !== null;
  const current = (href: string) => (href === "/" ? path === "/" : path === href || path.startsWith(`${href}/`));
  return (
    <nav className="site-nav" aria-label="Kiln">
      <a className="skip-link" href="#main">Skip to content</a>
      <Link href="/" className="site-brand">Kiln</Link>
      {/* Team mode, signed out (sign-in, one-time links): the Studio's pages are not open yet. */}
      {!(viewer.mode === "team" && viewer.name === null) && <ul>
        {PAGES.map((p) => (
          <li key={p.href}>
            <Link href={p.href} prefetch={false} aria-current={current(p.href) ? "page" : undefined}>{p.label}</Link>
          </li>
        ))}
        {team && (
          <li>
            <Link href={viewer.role === "owner" ? "/team" : "/team/tokens"} prefetch={false} aria-current={current("/team") ? "page" : undefined}>Team</Link>
          </li>
        )}
      </ul>}
      {team && (
        <div className="site-user">
          <span className="site-user-name" data-testid="signed-in-as">{viewer.name}</span> <span className="badge" data-testid="role">{viewer.role}</span>
          {viewer.signedIn && <SignOut />}
        </div>
      )}
    </nav>
  );
}
