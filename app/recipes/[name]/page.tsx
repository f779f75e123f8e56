/** `/recipes/<name>`: the builder on a saved recipe (loaded in the browser through tRPC). */
import { builderTools } from "../_lib/catalogue-tools";
import { Builder } from "../_components/builder";

/** The segment as typed; a malformed %-escape is passed on as is (and refused as a name). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export const dynamic = "force-dynamic";

export async function generateMetadata({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return { title: `${decoded(name)} · Kiln recipes` };
}

export default async function RecipePage({ params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  return <Builder tools={builderTools()} name={decoded(name)} />;
}
