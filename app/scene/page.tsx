/** `/scene?app=blender|unity|godot&scene=`: the scene view (three.js), tree and inspector, live. */
import { APPS, type AppId } from "@/server/scene/types";
import { SceneStudio } from "./_components/scene-studio";
import "./scene.css";

export const metadata = { title: "Kiln scene" };

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function ScenePage({ searchParams }: Props) {
  const params = await searchParams;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;
  const app = one(params.app);
  if (app && !(APPS as readonly string[]).includes(app))
    return (
      <main className="page">
        <h1>Unknown app</h1>
        <p>
          <code>app</code> is one of {APPS.join(", ")}; <a href="/scene">open the default app&apos;s scene</a>.
        </p>
      </main>
    );
  // The root layout's KilnProviders serve this page too (one query cache, one tRPC client).
  return <SceneStudio app={app as AppId | undefined} scene={one(params.scene)} />;
}
