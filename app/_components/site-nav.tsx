"use client";
/** The bar at the top of every page: where you are, and the other pages one Tab away. */
import Link from "next/link";
import { usePathname } from "next/navigation";

const PAGES = [
  { href: "/", label: "Home" },
  { href: "/scene", label: "Scene" },
  { href: "/versions", label: "Versions" },
  { href: "/pipeline", label: "Pipeline" },
  { href: "/recipes", label: "Recipes" },
] as const;

export function SiteNav() {
  const path = usePathname() ?? "/";
  const current = (href: string) => (href === "/" ? path === "/" : path === href || path.startsWith(`${href}/`));
  return (
    <nav className="site-nav" aria-label="Kiln">
      <a className="skip-link" href="#main">Skip to content</a>
      <Link href="/" className="site-brand">Kiln</Link>
      <ul>
        {PAGES.map((p) => (
          <li key={p.href}>
            <Link href={p.href} prefetch={false} aria-current={current(p.href) ? "page" : undefined}>{p.label}</Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
