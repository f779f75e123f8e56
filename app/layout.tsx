import type { ReactNode } from "react";
import { SiteNav } from "./_components/site-nav";
import { KilnProviders } from "./recipes/_lib/trpc";
import { ViewerProvider } from "./_lib/viewer";
import { currentViewer } from "./_lib/viewer-server";
import "./globals.css";

export const metadata = { title: "Kiln", description: "Tool server for 3D creative applications" };

/** Every page: the shared navigation, who is looking (team mode), and React Query + tRPC for the pages that call tools. */
export default async function RootLayout({ children }: { children: ReactNode }) {
  const viewer = await currentViewer();
  return (
    <html lang="en">
      <body data-role={viewer.mode === "team" ? viewer.role : undefined}>
        <ViewerProvider viewer={viewer}>
          <KilnProviders>
            <SiteNav />
            <div id="main" tabIndex={-1}>{children}</div>
          </KilnProviders>
        </ViewerProvider>
      </body>
    </html>
  );
}
