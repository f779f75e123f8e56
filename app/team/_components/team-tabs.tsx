"use client";
/** The team pages' tabs: members and the audit log are an owner's; tokens are everyone's. */
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useViewer } from "../../_lib/viewer";

export function TeamTabs() {
  const path = usePathname();
  const owner = useViewer().role === "owner";
  const tabs = [...(owner ? [{ href: "/team", label: "Members" }] : []), { href: "/team/tokens", label: "Tokens" }, ...(owner ? [{ href: "/team/audit", label: "Audit log" }] : [])];
  return (
    <nav className="row" aria-label="Team">
      {tabs.map((t) => <Link key={t.href} href={t.href} className={`button-like${path === t.href ? " primary" : ""}`} aria-current={path === t.href ? "page" : undefined}>{t.label}</Link>)}
    </nav>
  );
}

/** A secret shown once (a new token, a one-time link), with a button that copies it. */
export function ShownOnce({ label, value, note }: { label: string; value: string; note: string }) {
  return (
    <div className="notice" role="status" data-testid="shown-once">
      <p><strong>{label}</strong> {note}</p>
      <div className="secret-once">
        <code data-testid="secret">{value}</code>
        <button type="button" onClick={() => void navigator.clipboard?.writeText(value)}>Copy</button>
      </div>
    </div>
  );
}
