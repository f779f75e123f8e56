/** `/versions`: history of the working state (see _components/versions-studio.tsx). */
import { VersionsStudio } from "./_components/versions-studio";

export const metadata = { title: "Kiln · Versions" };

export default function VersionsPage() {
  return <VersionsStudio />;
}
