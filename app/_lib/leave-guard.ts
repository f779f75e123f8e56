"use client";
/**
 * Asks before leaving a page with unsaved work, whichever way the user leaves: closing or
 * reloading the tab (beforeunload), any in-page link (the shared navigation, a back link), and the
 * browser's Back button. Links are caught in the capture phase, before Next's router sees the click.
 */
import { useEffect } from "react";

export function useLeaveGuard(active: boolean, message = "You have unsaved changes. Leave and lose them?") {
  useEffect(() => {
    if (!active) return;
    const beforeUnload = (e: BeforeUnloadEvent) => e.preventDefault();
    const click = (e: MouseEvent) => {
      if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
      const a = (e.target as Element | null)?.closest?.("a[href]") as HTMLAnchorElement | null;
      if (!a || (a.target && a.target !== "_self") || a.hasAttribute("download")) return;
      const url = new URL(a.href, window.location.href);
      if (url.origin === window.location.origin && url.pathname === window.location.pathname && url.search === window.location.search) return;
      if (!window.confirm(message)) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    // Back: a guard entry is pushed; popping it asks, and staying pushes it again.
    window.history.pushState({ ...window.history.state, kilnLeaveGuard: true }, "");
    let leaving = false;
    const popState = () => {
      if (leaving) return;
      if (window.confirm(message)) {
        leaving = true;
        window.history.back();
      } else {
        window.history.pushState({ ...window.history.state, kilnLeaveGuard: true }, "");
      }
    };
    window.addEventListener("beforeunload", beforeUnload);
    document.addEventListener("click", click, true);
    window.addEventListener("popstate", popState);
    return () => {
      window.removeEventListener("beforeunload", beforeUnload);
      document.removeEventListener("click", click, true);
      window.removeEventListener("popstate", popState);
      if (!leaving && window.history.state?.kilnLeaveGuard) window.history.back();
    };
  }, [active, message]);
}
