/** Shell of the recipe pages: React Query + tRPC, React Flow's stylesheet and the builder's. */
import "@xyflow/react/dist/style.css";
import "./recipes.css";
import type { ReactNode } from "react";
import { KilnProviders } from "./_lib/trpc";

export const metadata = { title: "Kiln recipes" };

export default function RecipesLayout({ children }: { children: ReactNode }) {
  return <KilnProviders>{children}</KilnProviders>;
}
