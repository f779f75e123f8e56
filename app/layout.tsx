import type { ReactNode } from "react";
import "./globals.css";

export const metadata = { title: "Kiln", description: "Tool server for 3D creative applications" };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
