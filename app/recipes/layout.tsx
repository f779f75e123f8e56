/** Shell of the recipe pages: React Flow's stylesheet and the builder's (tRPC comes from the root layout). */
import "@xyflow/react/dist/style.css";
import "./recipes.css";
import type { ReactNode } from "react";

export const metadata = { title: "Kiln recipes" };

export default function RecipesLayout({ children }: { children: ReactNode }) {
  return <>{children}</>;
}
