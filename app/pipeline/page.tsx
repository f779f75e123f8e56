/** `/pipeline`: the apps and the transfers between them (see _components/pipeline-studio.tsx). */
import { PipelineStudio } from "./_components/pipeline-studio";

export const metadata = { title: "Kiln · Pipeline" };

export default function PipelinePage() {
  return <PipelineStudio />;
}
