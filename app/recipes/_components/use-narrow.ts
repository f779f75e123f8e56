"use client";
/** Whether the window is phone-narrow (700 px or less), following resizes; false on the server. */
import { useEffect, useState } from "react";

export const NARROW_QUERY = "(max-width: 700px)";

export function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(false);
  useEffect(() => {
    const media = window.matchMedia(NARROW_QUERY);
    const update = () => setNarrow(media.matches);
    update();
    media.addEventListener("change", update);
    return () => media.removeEventListener("change", update);
  }, []);
  return narrow;
}
