/**
 * `/recipes/new`: the builder on an empty recipe. `?recipe=new` opens the recipe named "new",
 * whose own address this page takes.
 */
import { builderTools } from "../_lib/catalogue-tools";
import { Builder } from "../_components/builder";

export const dynamic = "force-dynamic";
export const metadata = { title: "New recipe · Kiln" };

export default async function NewRecipePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const { recipe } = await searchParams;
  return <Builder tools={builderTools()} name={recipe === "new" ? "new" : undefined} />;
}
