import type { ReactNode } from "react";
import { SiteNav } from "./_components/site-nav";
import { KilnProviders } from "./recipes/_lib/trpc";
import "./globals.css";

export const metadata = { title: "Kiln", description: "Tool server for 3D creative applications" };

/** Every page: the shared navigation, and React Query + tRPC for the pages that call tools. */
export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <KilnProviders>
          <SiteNav />
          <div id="main" tabIndex={-1}>{children}</div>
        </KilnProviders>
      </body>
    </html>
  );
}
