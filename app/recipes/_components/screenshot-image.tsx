"use client";
/**
 * A screenshot served at /screenshots/<id>.png. With an access token set, an <img> cannot send
 * it, so the image is fetched with the bearer header and shown from a blob URL instead.
 */
import { useEffect, useState } from "react";
import { authHeaders, getToken } from "../_lib/trpc";

/** Shows a screenshot by its Kiln URL. */
export function ScreenshotImage({ url, alt, className }: { url: string; alt: string; className?: string }) {
  const [src, setSrc] = useState<string | undefined>(() => (getToken() ? undefined : url));
  useEffect(() => {
    if (!getToken()) {
      setSrc(url);
      return;
    }
    let objectUrl: string | undefined;
    let live = true;
    fetch(url, { headers: authHeaders() })
      .then((r) => (r.ok ? r.blob() : Promise.reject(new Error(String(r.status)))))
      .then((blob) => {
        objectUrl = URL.createObjectURL(blob);
        if (live) setSrc(objectUrl);
      })
      .catch(() => live && setSrc(undefined));
    return () => {
      live = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [url]);
  if (!src) return <div className={`${className ?? ""} screenshot-missing`}>screenshot</div>;
  // A plain <img>: a PNG Kiln just rendered, nothing for next/image to optimise.
  return <img className={className} src={src} alt={alt} data-testid="screenshot" />;
}
